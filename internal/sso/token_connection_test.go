package sso_test

import (
	"net/http"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An SSO token is redeemed against the connection it came through as that
// connection now stands: one deleted, or made inactive, between the
// callback and b2b/sso/authenticate logs nobody in, so an administrator who
// removes a compromised connection ends the logins it had already let
// through its callback. Nothing else is spent: no session or IST is made.

// tokenLogin is an organization with an SSO connection of one kind.
type tokenLogin struct {
	orgID, connID string
	// token walks a login through the connection and returns its SSO token.
	token func() string
	// setActive completes the connection's settings (active) or clears
	// one it needs (pending) through the admin API.
	setActive func(bool)
}

func samlTokenLogin(t *testing.T, e *apptest.Env) tokenLogin {
	s := newSAMLEnv(t, e, nil)
	s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
	ssoURL := s.idp.idp.SSOURL.String()
	return tokenLogin{orgID: s.orgID, connID: s.connID,
		token: func() string {
			acs, form := s.idp.follow(s.start(nil))
			return tokenFrom(t, s.post(acs, form))
		},
		setActive: func(on bool) {
			v := ""
			if on {
				v = ssoURL
			}
			wantStatus(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID,
				map[string]any{"idp_sso_url": v}), on)
		}}
}

func oidcTokenLogin(t *testing.T, e *apptest.Env) tokenLogin {
	s := newOIDCEnv(t, e)
	user := &mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test", EmailVerified: true}
	clientID := s.op.Config().ClientID
	return tokenLogin{orgID: s.orgID, connID: s.connID,
		token: func() string { return tokenFrom(t, s.login(user, nil)) },
		setActive: func(on bool) {
			v := ""
			if on {
				v = clientID
			}
			wantStatus(t, e.Backend(http.MethodPut, "/v1/b2b/sso/oidc/"+s.orgID+"/connections/"+s.connID,
				map[string]any{"client_id": v}), on)
		}}
}

// wantStatus checks an update's answer left the connection active (on) or
// pending.
func wantStatus(t *testing.T, r apptest.Resp, active bool) {
	t.Helper()
	apptest.Want(t, r, 200, "")
	want := "pending"
	if active {
		want = "active"
	}
	if st := r.Body["connection"].(map[string]any)["status"]; st != want {
		t.Fatalf("status %v, want %s: %s", st, want, r.Raw)
	}
}

func TestSSOTokenNeedsItsConnection(t *testing.T) {
	for name, kind := range map[string]func(*testing.T, *apptest.Env) tokenLogin{"saml": samlTokenLogin, "oidc": oidcTokenLogin} {
		t.Run(name, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				l := kind(t, e)
				sessions := func() int {
					return e.Count(`SELECT COUNT(*) FROM member_sessions WHERE organization_id = $1`, l.orgID)
				}
				authenticate := func(token string) apptest.Resp {
					t.Helper()
					return e.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token}, "")
				}
				refused := func(token string, status int, errType string) {
					t.Helper()
					before := sessions()
					apptest.Want(t, authenticate(token), status, errType)
					if n := sessions(); n != before {
						t.Fatalf("refused login made a session: %d, had %d", n, before)
					}
				}
				// A token of the connection as it stands logs in.
				apptest.Want(t, authenticate(l.token()), 200, "")

				// Made pending between callback and authenticate: refused as
				// the callback would have refused it. The refusal is the
				// connection's status, not the token's: one issued before
				// and redeemed once the connection is active again logs in.
				deactivated, kept := l.token(), l.token()
				l.setActive(false)
				refused(deactivated, 400, "sso_connection_not_active")
				l.setActive(true)
				apptest.Want(t, authenticate(kept), 200, "")

				// Deleted between callback and authenticate: the token names
				// nothing that exists any more.
				deleted := l.token()
				apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/sso/"+l.orgID+"/connections/"+l.connID, nil), 200, "")
				refused(deleted, 404, "sso_token_not_found")
			})
		})
	}
}

// TestSSOTokenNeedsItsRegistration: a later login of the member through
// the same connection under another NameID replaces the registration an
// earlier token names (the earlier login's attributes and groups are no
// longer what the identity provider says); that token logs nobody in,
// while the later one does.
func TestSSOTokenNeedsItsRegistration(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		token := func(nameID string) string {
			s.idp.login("ada@acme.test", nameID, "Ada", "Lovelace")
			acs, form := s.idp.follow(s.start(nil))
			return tokenFrom(t, s.post(acs, form))
		}
		first := token("transient-1")
		second := token("transient-2")
		r := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": first}, "")
		apptest.Want(t, r, 404, "sso_token_not_found")
		r = s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": second}, "")
		apptest.Want(t, r, 200, "")
		regs := r.Data()["member"].(map[string]any)["sso_registrations"].([]any)
		if len(regs) != 1 || regs[0].(map[string]any)["external_id"] != "transient-2" {
			t.Fatalf("registrations: %v", regs)
		}
	})
}
