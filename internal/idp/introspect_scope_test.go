package idp_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// introspected introspects token as the client and returns the answer,
// which must be 200.
func (f *fixture) introspected(id, secret, token string) apptest.Resp {
	f.t.Helper()
	r := f.form("/oauth2/introspect", id, secret, url.Values{"token": {token}})
	apptest.Want(f.t, r, 200, "")
	return r
}

// Introspection answers the scope a token would carry if it were used
// now, by the rule the refresh grant applies to its family: a custom
// scope whose permission the member's roles lost, and full_access once the
// app may no longer hold it, are not reported, for the refresh token and
// the access token alike, before any refresh has narrowed the family. The
// refresh that follows issues exactly what introspection reported.
func TestIntrospectionReportsTheScopeHeldNow(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		docsPolicy(t, e)
		roles := func(roles ...string) {
			t.Helper()
			roles = append([]string{}, roles...) // none is [], not null (which changes nothing)
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.org+"/members/"+f.member,
				map[string]any{"roles": roles}), 200, "")
			f.session, _ = e.LoginByEmailOTP(f.org, "ada@acme.test")
		}
		check := func(name, id, secret string, tok apptest.Resp, want ...string) {
			t.Helper()
			for _, k := range []string{"refresh_token", "access_token"} {
				in := f.introspected(id, secret, tok.Body[k].(string))
				if got := fields(in.Body["scope"]); in.Body["active"] != true || !slices.Equal(got, want) {
					t.Fatalf("%s: %s introspects as %s, want active with scope %v", name, k, in.Raw, want)
				}
			}
			r := f.refresh(id, secret, tok.Body["refresh_token"].(string), "")
			if apptest.Want(t, r, 200, ""); !slices.Equal(fields(r.Body["scope"]), want) {
				t.Fatalf("%s: the refresh issued %v, introspection said %v", name, r.Body["scope"], want)
			}
		}

		// A role removed after a third-party app was granted read:docs.
		roles("editor")
		third, thirdSecret := f.client("third_party", nil)
		tok := f.grant(third, thirdSecret, "openid", "read:docs", "offline_access")
		check("editor", third, thirdSecret, tok, "openid", "read:docs", "offline_access")
		tok = f.grant(third, thirdSecret, "openid", "read:docs", "offline_access")
		roles()
		check("role removed", third, thirdSecret, tok, "openid", "offline_access")

		// full_access_allowed turned off after a first-party app was
		// granted full_access.
		first, firstSecret := f.client("first_party", map[string]any{"full_access_allowed": true})
		tok = f.grant(first, firstSecret, "openid", "offline_access", "full_access")
		apptest.Want(t, e.Backend("PUT", "/v1/connected_apps/clients/"+first, map[string]any{"full_access_allowed": false}), 200, "")
		check("full_access disallowed", first, firstSecret, tok, "openid", "offline_access")
	})
}

// A family whose consent is gone, or no longer covers the scopes it would
// be issued now, cannot be refreshed (the refresh ends it): introspection
// says so before that refresh does, for both of its tokens.
func TestIntrospectionOfAFamilyItsConsentNoLongerCovers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		for name, change := range map[string]string{
			// Written behind the API: consent only grows until a revoke,
			// which ends the tokens too, but a family can outlive its
			// consent (a code redeemed after a revoke, before issue
			// checked consent).
			"consent narrowed": `UPDATE idp_grants SET scopes = '["openid","offline_access"]' WHERE member_id = $1`,
			"consent gone":     `DELETE FROM idp_grants WHERE member_id = $1`,
		} {
			tok := f.grant(id, secret, "openid", "email", "offline_access")
			if _, err := e.App.DB.ExecContext(context.Background(), change, f.member); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"refresh_token", "access_token"} {
				if in := f.introspected(id, secret, tok.Body[k].(string)); in.Body["active"] != false || in.Body["scope"] != nil {
					t.Fatalf("%s: %s introspects as %s", name, k, in.Raw)
				}
			}
			oauthErr(t, f.refresh(id, secret, tok.Body["refresh_token"].(string), ""), 400, "invalid_grant")
		}
	})
}
