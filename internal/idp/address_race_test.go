package idp_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// wantNothingLive checks that the member holds no token, consent or session.
func (f *fixture) wantNothingLive(t *testing.T) {
	t.Helper()
	for what, query := range map[string]string{
		"tokens":   `SELECT COUNT(*) FROM idp_tokens WHERE member_id = $1 AND revoked_at IS NULL`,
		"consents": `SELECT COUNT(*) FROM idp_grants WHERE member_id = $1`,
		"sessions": `SELECT COUNT(*) FROM member_sessions WHERE member_id = $1 AND revoked_at IS NULL`,
	} {
		if n := rows(t, f.e, query, f.member); n != 0 {
			t.Fatalf("%d live %s of the member after the address change", n, what)
		}
	}
}

// An authorization code granted by the member at their old address is
// not exchanged after an admin changed it: the change ended what the old
// address's holder granted, and the code, issued before, would otherwise
// mint tokens for whoever now has the member's address.
func TestCodeGrantedBeforeAddressChangeIsRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("first_party", nil)
		_, back := f.authorize(authReq(id, "openid", "offline_access"), true)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.org+"/members/"+f.member,
			map[string]any{"email_address": "someone-else@acme.test"}), 200, "")
		oauthErr(t, f.exchange(id, secret, back.Get("code"), verifier), 400, "invalid_grant")
		f.wantNothingLive(t)
	})
}

// On PostgreSQL an admin's address change may be in flight while the
// member's session authorizes an app, a refresh token is rotated or an
// access token is exchanged for a session, each having checked its
// credential before the change committed. The change is held open after
// it revoked and deleted what the member held (storetest.Overlap) while
// the request runs; once both ended, the member holds nothing.
func TestProviderOverlappingAddressChangeOnPostgres(t *testing.T) {
	t.Parallel()
	requests := []struct {
		name string
		// prepare obtains the credential before the change and returns the
		// request and the check of its answer.
		prepare func(t *testing.T, f *fixture) (run func() apptest.Resp, want func(t *testing.T, r apptest.Resp))
	}{
		{"authorize", func(t *testing.T, f *fixture) (func() apptest.Resp, func(*testing.T, apptest.Resp)) {
			id, _ := f.client("first_party", nil)
			req := authReq(id, "openid", "offline_access")
			apptest.Want(t, f.e.SDK(http.MethodPost, "/idp/b2b/oauth/authorize/start", req, f.session), 200, "")
			req["consent_granted"] = true
			return func() apptest.Resp {
					return f.e.SDK(http.MethodPost, "/idp/b2b/oauth/authorize/submit", req, f.session)
				},
				func(t *testing.T, r apptest.Resp) {
					apptest.Want(t, r, 200, "")
					u, err := url.Parse(r.Data()["redirect_uri"].(string))
					if err != nil || u.Query().Get("code") != "" || u.Query().Get("error") != "login_required" {
						t.Fatalf("authorized during the address change: %v", r.Data()["redirect_uri"])
					}
				}
		}},
		{"refresh", func(t *testing.T, f *fixture) (func() apptest.Resp, func(*testing.T, apptest.Resp)) {
			id, secret := f.client("first_party", nil)
			rt := f.grant(id, secret, "openid", "offline_access").Body["refresh_token"].(string)
			return func() apptest.Resp { return f.refresh(id, secret, rt, "") },
				func(t *testing.T, r apptest.Resp) { oauthErr(t, r, 400, "invalid_grant") }
		}},
		{"exchange access token", func(t *testing.T, f *fixture) (func() apptest.Resp, func(*testing.T, apptest.Resp)) {
			id, secret := f.client("first_party", map[string]any{"full_access_allowed": true})
			at := f.grant(id, secret, "openid", "full_access").Body["access_token"].(string)
			return func() apptest.Resp { return exchangeAccessToken(f.e, at) },
				func(t *testing.T, r apptest.Resp) {
					apptest.Want(t, r, 401, "oauth_access_token_exchange_token_invalid_grant")
				}
		}},
	}
	for _, c := range requests {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := apptest.New(t, apptest.Postgres(t), nil)
			f := setup(t, e)
			run, want := c.prepare(t, f)
			var r apptest.Resp
			changeErr, _ := storetest.Overlap(t, e.App.DB, func(q store.Querier) error {
				return e.ChangeAddressIn(q, f.org, f.member, "someone-else@acme.test")
			},
				func() error { r = run(); return nil })
			if changeErr != nil {
				t.Fatalf("address change: %v", changeErr)
			}
			want(t, r)
			f.wantNothingLive(t)
		})
	}
}
