package idp_test

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// What a grant's scopes release: a refresh token only under
// offline_access, an ID token and userinfo only under openid, and in
// userinfo only the claims of the granted scopes.
func TestScopesDecideWhatIsIssued(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		userinfo := func(at any) apptest.Resp {
			return e.Do("GET", "/v1/public/"+e.Project.Project.ID+"/oauth2/userinfo", nil,
				http.Header{"Authorization": {"Bearer " + at.(string)}}, "", "")
		}
		tok := f.grant(id, secret, "openid")
		if tok.Body["refresh_token"] != nil {
			t.Fatalf("a refresh token without offline_access: %s", tok.Raw)
		}
		if ui := userinfo(tok.Body["access_token"]); ui.Status != 200 || ui.Body["email"] != nil || ui.Body["name"] != nil {
			t.Fatalf("userinfo beyond openid: %d %s", ui.Status, ui.Raw)
		}
		tok = f.grant(id, secret, "email")
		if tok.Body["id_token"] != nil {
			t.Fatalf("an ID token without openid: %s", tok.Raw)
		}
		oauthErr(t, userinfo(tok.Body["access_token"]), 403, "insufficient_scope")
	})
}

// The ID token's at_hash is the left half of SHA-256 of the access token
// issued with it (OIDC Core 3.1.3.6).
func TestIDTokenAtHash(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		tok := f.grant(id, secret, "openid")
		sum := sha256.Sum256([]byte(tok.Body["access_token"].(string)))
		if got := f.claims(tok.Body["id_token"].(string))["at_hash"]; got != base64.RawURLEncoding.EncodeToString(sum[:16]) {
			t.Fatalf("at_hash %v", got)
		}
	})
}

// The app's access_token_expiry_minutes sets the access token's lifetime
// (expires_in, exp, and when it stops being active), and its custom
// audience joins the project in aud.
func TestAccessTokenLifetimeAndAudienceFollowTheApp(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", map[string]any{"access_token_expiry_minutes": 15,
			"access_token_custom_audience": "https://api.rp.test"})
		tok := f.grant(id, secret, "openid")
		at := f.claims(tok.Body["access_token"].(string))
		aud, _ := at["aud"].([]any)
		if tok.Body["expires_in"] != float64(900) || at["exp"].(float64)-at["iat"].(float64) != 900 ||
			!slices.Contains(aud, any(e.Project.Project.ID)) || !slices.Contains(aud, any("https://api.rp.test")) {
			t.Fatalf("token %s, claims %v", tok.Raw, at)
		}
		e.Clock.Advance(16 * time.Minute)
		if f.active(id, secret, tok.Body["access_token"].(string)) {
			t.Fatal("the access token outlived the app's expiry")
		}
	})
}
