package oauth_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/oauth2-proxy/mockoidc"
)

// One Tap hands over an ID token, no access token: a One Tap login keeps
// the access token, its expiry and the scopes that a redirect-flow login
// stored on the registration (the vendor keeps them too), and stores its
// own ID token. oauth_providers/google shows them after it as before.
func TestOneTapLoginKeepsTheRedirectFlowsAccessToken(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m, org, submit := oneTapAcme(t, e)
		// A scope past One Tap's openid, email and profile (mockoidc
		// grants only those and groups).
		const extra = "groups"
		m.QueueUser(&mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true})
		u := browse(t, e, startPath(e, "google", url.Values{"organization_id": {org}, "custom_scopes": {extra}}))
		r := e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")}, "")
		apptest.Want(t, r, 200, "")
		path := "/v1/b2b/organizations/" + org + "/members/" + r.Data()["member_id"].(string) + "/oauth_providers/google"
		before := e.Backend(http.MethodGet, path, nil)
		apptest.Want(t, before, 200, "")
		access, _ := before.Body["access_token"].(string)
		expiresIn, _ := before.Body["access_token_expires_in"].(float64)
		scopes, _ := before.Body["scopes"].([]any)
		if access == "" || expiresIn <= 0 || !slices.Contains(scopes, any(extra)) {
			t.Fatalf("after the redirect flow: %s", before.Raw)
		}

		idToken := oneTapToken(t, m, nil)
		r = submit(idToken)
		apptest.Want(t, r, 200, "")
		u, err := url.Parse(str(r.Data(), "redirect_url"))
		if err != nil {
			t.Fatal(err)
		}
		r = e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")}, "")
		apptest.Want(t, r, 200, "")
		// The One Tap login's own answer has what it brought.
		if pv := r.Data()["provider_values"].(map[string]any); pv["access_token"] != "" || pv["id_token"] != idToken {
			t.Fatalf("One Tap provider_values: %v", pv)
		}

		after := e.Backend(http.MethodGet, path, nil)
		apptest.Want(t, after, 200, "")
		if after.Body["access_token"] != access || after.Body["access_token_expires_in"] != expiresIn ||
			!slices.Equal(after.Body["scopes"].([]any), scopes) {
			t.Fatalf("after One Tap: access %v expires_in %v scopes %v, want %v %v %v", after.Body["access_token"],
				after.Body["access_token_expires_in"], after.Body["scopes"], access, expiresIn, scopes)
		}
		if after.Body["id_token"] != idToken {
			t.Fatalf("after One Tap: id_token %v, want One Tap's", after.Body["id_token"])
		}
	})
}
