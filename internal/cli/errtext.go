package cli

import (
	"errors"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
)

// errorText is what a failed command prints of err. A refusal from the
// error catalogue prints its message and type, as the API would answer
// it ("Member not found. (member_not_found)"), not the chain of internal
// causes behind it (organization: member nope: store: not found: sql: no
// rows in result set), which tells an operator nothing more and reads as
// a crash. LATCHKEY_LOG_LEVEL=debug prints the chain too. Any other error
// is already written for the operator and prints whole.
func errorText(env Env, err error) string {
	var pub *apierr.Error
	if !errors.As(err, &pub) || pub.Type == apierr.InternalServerError {
		return err.Error()
	}
	text := pub.Message + " (" + string(pub.Type) + ")"
	if v, _ := env.Lookup("LATCHKEY_LOG_LEVEL"); strings.EqualFold(strings.TrimSpace(v), "debug") {
		text += "\n(cause: " + err.Error() + ")"
	}
	return text
}
