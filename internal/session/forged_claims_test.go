package session_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Only this server signs session JWTs, always for its project as issuer
// and audience, and valid from the moment they are signed. A JWT that
// says otherwise, even under the project's own key (one shared with
// another system, or a token signed by a replica whose clock runs ahead),
// names no session: the registered claims are checked, not only the
// signature. Each case re-signs the server's own JWT with the project's
// key and changes one claim; the unchanged re-signing passes, so each
// refusal is the claim's.
func TestSessionJWTClaimsAreCheckedNotJustTheSignature(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		_, jwt, _ := e.Login(org, "ada@acme.test")
		keys, err := e.App.Projects.SigningKeys(t.Context(), e.Project.Project.ID)
		if err != nil || len(keys) == 0 {
			t.Fatalf("signing keys: %v", err)
		}
		key := keys[0]
		for _, k := range keys {
			if !k.ActivatesAt.After(e.Clock.Now()) {
				key = k
			}
		}
		var claims map[string]any
		if err := jwtPayload(jwt, &claims); err != nil {
			t.Fatal(err)
		}
		resign := func(change func(map[string]any)) string {
			t.Helper()
			c := map[string]any{}
			for k, v := range claims {
				c[k] = v
			}
			change(c)
			payload, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key.Private},
				(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", key.KID))
			if err != nil {
				t.Fatal(err)
			}
			obj, err := signer.Sign(payload)
			if err != nil {
				t.Fatal(err)
			}
			out, err := obj.CompactSerialize()
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		now := e.Clock.Now()
		if r := check(e, "", resign(func(map[string]any) {})); r.Status != 200 {
			t.Fatalf("the JWT re-signed unchanged: %s", r.Raw)
		}
		cases := map[string]func(map[string]any){
			"another issuer":          func(c map[string]any) { c["iss"] = "stytch.com/project-test-other" },
			"another audience":        func(c map[string]any) { c["aud"] = []string{"project-test-other"} },
			"not valid for an hour":   func(c map[string]any) { c["nbf"] = now.Add(time.Hour).Unix() },
			"issued an hour from now": func(c map[string]any) { c["iat"] = now.Add(time.Hour).Unix() },
		}
		for name, change := range cases {
			forged := resign(change)
			if strings.Count(forged, ".") != 2 {
				t.Fatalf("%s: not a compact JWS", name)
			}
			r := check(e, "", forged)
			if r.Status == 200 {
				var got map[string]any
				part := strings.Split(forged, ".")[1]
				raw, _ := base64.RawURLEncoding.DecodeString(part)
				_ = json.Unmarshal(raw, &got)
				t.Errorf("%s: a JWT with claims %v was accepted", name, got)
				continue
			}
			apptest.Want(t, r, 401, "unable_to_parse_session_jwt")
		}
	})
}
