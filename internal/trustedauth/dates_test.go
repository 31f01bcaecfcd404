package trustedauth_test

import (
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A date claim the issuer wrote but that is no NumericDate (RFC 7519
// section 2: a JSON number of seconds) cannot be checked, so the token is
// refused rather than read as if the claim were absent; and a number past
// what a time can hold must not wrap around into the distant past, where
// a not-before or issued-at date passes every check.
func TestAttestRefusesDatesItCannotRead(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		now := e.Clock.Now()
		future := now.Add(time.Hour).Unix()
		for i, extra := range []map[string]any{
			{"nbf": 1e20},
			{"iat": 1e20},
			{"nbf": float64(1 << 63)},
			{"nbf": "not a date"},
			{"nbf": []any{future}},
			{"iat": map[string]any{"seconds": future}},
			{"exp": "soon"},
			{"exp": -1e20},
		} {
			tok := sc.is.token(now, "ana@acme.test", "dates-"+string(rune('a'+i)), extra)
			r := sc.attest(tok)
			if r.Status == 200 {
				t.Errorf("claims %v: a session was made", extra)
				continue
			}
			apptest.Want(t, r, 401, "invalid_trusted_auth_token")
		}
		// Fractional and in range: still read. (Numbers are float64 here:
		// go-jose writes a json.Number claim as a string.)
		apptest.Want(t, sc.attest(sc.is.token(now, "ana@acme.test", "dates-ok", map[string]any{
			"nbf": 1.5, "iat": 1.5})), 200, "")
	})
}
