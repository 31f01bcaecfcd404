package store

import (
	"strconv"
	"strings"
)

// Placeholders returns "$from, ..., $(from+n-1)", the numbered parameters
// of a VALUES row or an IN list, in both dialects' spelling.
func Placeholders(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(from + i))
	}
	return b.String()
}
