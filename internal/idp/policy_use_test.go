package idp_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// userInfo calls userinfo with a bearer access token.
func (f *fixture) userInfo(at string) apptest.Resp {
	return f.e.Do(http.MethodGet, "/v1/public/"+f.e.Project.Project.ID+"/oauth2/userinfo", nil,
		http.Header{"Authorization": {"Bearer " + at}}, "", "")
}

// setPolicy changes the organization's connected-app settings.
func (f *fixture) setPolicy(body map[string]any) {
	f.t.Helper()
	apptest.Want(f.t, f.e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.org, body), 200, "")
}

// An organization's connected-app policy applies to the tokens its
// members already hold, at every use and not only when they are issued:
// once it stops allowing an app, the app's access tokens introspect
// inactive, userinfo refuses them and a full_access one no longer becomes
// a session, and its refresh tokens introspect inactive as /oauth2/token
// refuses them. The policy revokes nothing: allowed again, the tokens
// nothing else ended work again, and the full_access token refused
// meanwhile is exchanged. A client may still revoke its token meanwhile,
// and that revocation holds once the app is allowed again.
func TestOrgPolicyAppliesToIssuedTokens(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("first_party", map[string]any{"full_access_allowed": true})
		tok := f.grant(id, secret, "openid", "offline_access", "full_access")
		at, rt := tok.Body["access_token"].(string), tok.Body["refresh_token"].(string)
		gone := f.grant(id, secret, "openid", "offline_access")
		goneAT := gone.Body["access_token"].(string)

		f.setPolicy(map[string]any{"first_party_connected_apps_allowed_type": "NOT_ALLOWED"})
		if f.active(id, secret, at) {
			t.Fatal("an access token of an app the organization no longer allows introspects active")
		}
		if f.active(id, secret, rt) {
			t.Fatal("a refresh token of an app the organization no longer allows introspects active")
		}
		oauthErr(t, f.userInfo(at), 401, "invalid_token")
		apptest.Want(t, exchangeAccessToken(e, at), 401, "oauth_access_token_exchange_token_invalid_grant")
		oauthErr(t, f.refresh(id, secret, rt, ""), 400, "invalid_grant")
		apptest.Want(t, f.form("/oauth2/revoke", id, secret, url.Values{"token": {goneAT}}), 200, "")

		f.setPolicy(map[string]any{"first_party_connected_apps_allowed_type": "ALL_ALLOWED"})
		if !f.active(id, secret, at) || !f.active(id, secret, rt) {
			t.Fatal("allowed again, the tokens nothing revoked stay inactive")
		}
		apptest.Want(t, f.userInfo(at), 200, "")
		if f.active(id, secret, goneAT) {
			t.Fatal("an access token revoked while its app was not allowed came back")
		}
		apptest.Want(t, exchangeAccessToken(e, at), 200, "")
		apptest.Want(t, f.refresh(id, secret, rt, ""), 200, "")
	})
}

// RESTRICTED is applied per app: a token of an app on the organization's
// list stays active, one of an app off it does not (the app is read only
// for a restricting policy).
func TestRestrictedPolicyAppliesPerApp(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		listed, listedSecret := f.client("third_party", nil)
		unlisted, unlistedSecret := f.client("third_party", nil)
		in := f.grant(listed, listedSecret, "openid", "offline_access")
		out := f.grant(unlisted, unlistedSecret, "openid", "offline_access")
		f.setPolicy(map[string]any{"third_party_connected_apps_allowed_type": "RESTRICTED",
			"allowed_third_party_connected_apps": []string{listed}})
		for _, k := range []string{"access_token", "refresh_token"} {
			if !f.active(listed, listedSecret, in.Body[k].(string)) {
				t.Fatalf("the %s of an app on the organization's list is inactive", k)
			}
			if f.active(unlisted, unlistedSecret, out.Body[k].(string)) {
				t.Fatalf("the %s of an app off the organization's list is active", k)
			}
		}
		apptest.Want(t, f.userInfo(in.Body["access_token"].(string)), 200, "")
		oauthErr(t, f.userInfo(out.Body["access_token"].(string)), 401, "invalid_token")
	})
}
