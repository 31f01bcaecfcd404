package m2m_test

import (
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A chosen client_secret is stored as a generated one is, an unsalted
// SHA-256 hash, which an offline guesser runs billions of times a second
// per GPU, against every client at once. So it must be as far out of
// reach as a generated one: at least 32 characters (a generated secret is
// 43), and not a pattern that length alone would let through. A random
// secret of 32 characters, hex or otherwise, is taken and works.
func TestChosenSecretMustBeLongAndRandom(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		a := tenant{e, e.Project}
		n := 0
		create := func(secret string) apptest.Resp {
			t.Helper()
			n++
			return a.backend("POST", "/v1/m2m/clients", map[string]any{"client_id": "nightly-reports-" + string(rune('a'+n)),
				"client_secret": secret, "scopes": []string{"read"}})
		}
		for name, secret := range map[string]string{
			// zxcvbn's top score (1e16 guesses), but a GPU's hour or two
			// against a fast hash.
			"sixteen random characters": "Xq7#vL2pR9m!Tz4w",
			"31 random characters":      "Xq7#vL2pR9m!Tz4wHb3$kN8sQ1e&Wy6",
			// 32 characters and zxcvbn's top score, yet 1e14 guesses.
			"a repeated password": "Summer2024!Summer2024!Summer2024",
			"a longer repetition": strings.Repeat("Summer2024!", 8),
		} {
			r := create(secret)
			if r.Status != 400 || r.ErrType() != "insecure_m2m_client_secret" {
				t.Errorf("%s: %d %s", name, r.Status, r.Raw)
			}
			if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, "32 characters") {
				t.Errorf("%s: the message does not name the length: %s", name, r.Raw)
			}
		}
		if c := e.Count(`SELECT COUNT(*) FROM m2m_clients`); c != 0 {
			t.Fatalf("refused secrets stored %d clients", c)
		}
		for _, secret := range []string{
			"Xq7#vL2pR9m!Tz4wHb3$kN8sQ1e&Wy6z", // 32 random characters
			"9f86d081884c7d659a2feaa0c55ad015", // openssl rand -hex 16
		} {
			r := create(secret)
			apptest.Want(t, r, 200, "")
			c := r.Body["m2m_client"].(map[string]any)
			apptest.Want(t, a.token(c["client_id"].(string), secret, ""), 200, "")
		}
	})
}
