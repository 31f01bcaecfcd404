package password_test

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
)

func sha1Upper(s string) string {
	sum := sha1.Sum([]byte(s))
	return strings.ToUpper(hex.EncodeToString(sum[:]))
}
