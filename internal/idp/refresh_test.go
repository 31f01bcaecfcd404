package idp_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A refresh token is bound to the client it was issued to (RFC 6749 6):
// another client of the project, authenticated with its own secret, gets
// invalid_grant, and the owner can still use the token afterwards.
func TestRefreshTokenIsBoundToItsClient(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		other, otherSecret := f.client("third_party", nil)
		rt := f.grant(id, secret, "openid", "offline_access").Body["refresh_token"].(string)
		oauthErr(t, f.refresh(other, otherSecret, rt, ""), 400, "invalid_grant")
		apptest.Want(t, f.refresh(id, secret, rt, ""), 200, "")
	})
}

// The refresh grant takes refresh tokens only: an access token's jti (which
// anyone holding the access token can read) names a stored row too, and
// must not mint a refresh token. Introspecting the bare jti shows nothing.
func TestRefreshRefusesAnAccessTokensID(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		at := f.grant(id, secret, "openid", "offline_access").Body["access_token"].(string)
		jti := f.claims(at)["jti"].(string)
		oauthErr(t, f.refresh(id, secret, jti, ""), 400, "invalid_grant")
		if f.active(id, secret, jti) {
			t.Fatal("an access token's jti introspects as an active refresh token")
		}
	})
}

// A refresh token lives refreshTokenTTL (30 days): past it the grant is
// invalid_grant and introspection says inactive; a rotated (spent) one is
// inactive at once.
func TestRefreshTokenExpiresAndASpentOneIsInactive(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		rt := f.grant(id, secret, "openid", "offline_access").Body["refresh_token"].(string)
		r := f.refresh(id, secret, rt, "")
		apptest.Want(t, r, 200, "")
		if f.active(id, secret, rt) {
			t.Fatal("a rotated refresh token introspects as active")
		}
		next := r.Body["refresh_token"].(string)
		e.Clock.Advance(30*24*time.Hour + time.Minute)
		if f.active(id, secret, next) {
			t.Fatal("an expired refresh token introspects as active")
		}
		oauthErr(t, f.refresh(id, secret, next, ""), 400, "invalid_grant")
	})
}

// A refresh may narrow the granted scopes, never widen them (RFC 6749 6).
// A narrowed refresh narrows that access token (its ID token, userinfo and
// the answer's scope) only: the rotated refresh token keeps the family's
// scopes, identical to the presented one's, so the next refresh without a
// scope parameter gets them all back.
func TestRefreshMayOnlyNarrowScopes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		rt := f.grant(id, secret, "openid", "email", "offline_access").Body["refresh_token"].(string)
		oauthErr(t, f.refresh(id, secret, rt, "openid phone"), 400, "invalid_scope")
		r := f.refresh(id, secret, rt, "openid")
		apptest.Want(t, r, 200, "")
		at, next := r.Body["access_token"].(string), r.Body["refresh_token"].(string)
		if r.Body["scope"] != "openid" || next == "" || f.claims(at)["scope"] != "openid" {
			t.Fatalf("narrowed refresh: %s", r.Raw)
		}
		if _, ok := f.claims(r.Body["id_token"].(string))["email"]; ok {
			t.Fatalf("the narrowed ID token carries email: %s", r.Raw)
		}
		if u := f.userInfo(at); u.Status != 200 || u.Body["email"] != nil {
			t.Fatalf("userinfo of the narrowed token: %s", u.Raw)
		}
		in := f.form("/oauth2/introspect", id, secret, url.Values{"token": {next}})
		if in.Body["scope"] != "openid email offline_access" {
			t.Fatalf("the rotated refresh token was narrowed: %s", in.Raw)
		}
		r = f.refresh(id, secret, next, "")
		apptest.Want(t, r, 200, "")
		if r.Body["scope"] != "openid email offline_access" {
			t.Fatalf("refresh after a narrowed one: %s", r.Raw)
		}
		// Narrowed to a scope without openid: no ID token, and the
		// family still has its refresh token.
		r = f.refresh(id, secret, r.Body["refresh_token"].(string), "email")
		apptest.Want(t, r, 200, "")
		if r.Body["scope"] != "email" || r.Body["id_token"] != nil || r.Body["refresh_token"] == nil {
			t.Fatalf("narrowed to email: %s", r.Raw)
		}
	})
}

// Tokens are issued only to an active member: once the member is deleted,
// their refresh token is invalid_grant and their access token cannot be
// exchanged for a session.
func TestDeletedMemberGetsNoTokensOrSession(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("first_party", map[string]any{"full_access_allowed": true})
		tok := f.grant(id, secret, "openid", "offline_access", "full_access")
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+f.org+"/members/"+f.member, nil), 200, "")
		oauthErr(t, f.refresh(id, secret, tok.Body["refresh_token"].(string), ""), 400, "invalid_grant")
		r := e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange_access_token", map[string]any{"access_token": tok.Body["access_token"]})
		if r.Status == 200 {
			t.Fatalf("a deleted member's access token became a session: %s", r.Raw)
		}
	})
}

// The organization's connected-app policy holds at every issue, not only
// at authorization: once the organization stops allowing the app, a
// refresh (and a code issued before the change) is invalid_grant. The
// refused refresh token is not spent, so it works again once the
// organization allows the app again.
func TestOrganizationPolicyAppliesOnRefresh(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		rt := f.grant(id, secret, "openid", "offline_access").Body["refresh_token"].(string)
		_, back := f.authorize(authReq(id, "openid"), true)
		policy := func(body map[string]any) {
			t.Helper()
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.org, body), 200, "")
		}
		policy(map[string]any{"third_party_connected_apps_allowed_type": "NOT_ALLOWED"})
		oauthErr(t, f.refresh(id, secret, rt, ""), 400, "invalid_grant")
		oauthErr(t, f.exchange(id, secret, back.Get("code"), verifier), 400, "invalid_grant")
		policy(map[string]any{"third_party_connected_apps_allowed_type": "RESTRICTED", "allowed_third_party_connected_apps": []string{"connected-app-test-other"}})
		oauthErr(t, f.refresh(id, secret, rt, ""), 400, "invalid_grant")
		policy(map[string]any{"third_party_connected_apps_allowed_type": "RESTRICTED", "allowed_third_party_connected_apps": []string{id}})
		apptest.Want(t, f.refresh(id, secret, rt, ""), 200, "")
	})
}

// The family's scopes kept by a narrowed refresh are still what the member
// may hold: a custom scope whose role was removed leaves the rotated
// refresh token too, and does not come back with the next refresh.
func TestNarrowedRefreshStillDropsLostScopes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		docsPolicy(t, e)
		member := func(roles []string) {
			t.Helper()
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.org+"/members/"+f.member,
				map[string]any{"roles": roles}), 200, "")
		}
		member([]string{"editor"})
		f.session, _ = e.LoginByEmailOTP(f.org, "ada@acme.test")
		id, secret := f.client("third_party", nil)
		rt := f.grant(id, secret, "openid", "read:docs", "offline_access").Body["refresh_token"].(string)
		member([]string{})
		r := f.refresh(id, secret, rt, "openid")
		apptest.Want(t, r, 200, "")
		in := f.form("/oauth2/introspect", id, secret, url.Values{"token": {r.Body["refresh_token"].(string)}})
		if r.Body["scope"] != "openid" || in.Body["scope"] != "openid offline_access" {
			t.Fatalf("narrowed refresh after the role went: %s, refresh token %s", r.Raw, in.Raw)
		}
		member([]string{"editor"})
		if r = f.refresh(id, secret, r.Body["refresh_token"].(string), ""); r.Body["scope"] != "openid offline_access" {
			t.Fatalf("a lost scope came back: %s", r.Raw)
		}
	})
}
