package idp_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The IdP's tokens follow the project's signing key as session JWTs do: a
// rotated key signs them only from its activation, so relying parties
// that cache the JWKS have the time to find it there first.
func TestTokensSignedWithTheRotatedKeyFromItsActivation(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx, pid := t.Context(), e.Project.Project.ID
		r := e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Job", "scopes": []string{"read:x"}})
		apptest.Want(t, r, 200, "")
		c := r.Body["m2m_client"].(map[string]any)
		id, secret := c["client_id"].(string), c["client_secret"].(string)
		kid := func() string {
			t.Helper()
			r := e.Do("POST", "/v1/public/"+pid+"/oauth2/token", `{"grant_type":"client_credentials"}`,
				http.Header{"Content-Type": {"application/json"}}, id, secret)
			apptest.Want(t, r, 200, "")
			token, _ := r.Body["access_token"].(string)
			head, _, _ := strings.Cut(token, ".")
			raw, err := base64.RawURLEncoding.DecodeString(head)
			var h struct {
				KID string `json:"kid"`
			}
			if err != nil || json.Unmarshal(raw, &h) != nil {
				t.Fatalf("access token %q is not a JWT", token)
			}
			return h.KID
		}
		old := kid()
		e.Clock.Advance(time.Second)
		rotated, err := e.App.Projects.RotateSigningKey(ctx, pid)
		if err != nil {
			t.Fatal(err)
		}
		if got := kid(); got != old {
			t.Fatalf("an access token right after the rotation was signed with %s, want the old key %s", got, old)
		}
		e.Clock.Advance(time.UnixMilli(rotated.ActivatesAt).Sub(e.Clock.Now()))
		if got := kid(); got != rotated.KID {
			t.Fatalf("an access token after the activation was signed with %s, want the new key %s", got, rotated.KID)
		}
	})
}
