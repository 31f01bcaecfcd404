package sso_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/apptest/oidcuser"
)

// shapedUser is the shared shaped mockoidc user (oidcuser.User).
type shapedUser = oidcuser.User

// The ID token of an OIDC connection is checked for this login: its nonce
// (present and the one this login sent), its audience (the connection's
// client id) and its issuer (the connection's). A token the provider
// signed that fails any of them is refused at the callback; the same token
// unedited passes, so each refusal is the check's.
func TestOIDCIDTokenBoundToLoginClientAndIssuer(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		lin := func(edit map[string]any) *shapedUser {
			return &shapedUser{MockUser: &mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test", EmailVerified: true}, Edit: edit}
		}
		for name, edit := range map[string]map[string]any{
			"another login's nonce":  {"nonce": "the-nonce-of-another-login"},
			"no nonce":               {"nonce": nil},
			"another client's token": {"aud": "another-client-id"},
			"another issuer's token": {"iss": "https://issuer.evil.test"},
		} {
			t.Run(name, func(t *testing.T) {
				wantPage(t, s.login(lin(edit), nil), 400, "oidc_invalid_id_token")
			})
		}
		tokenFrom(t, s.login(lin(nil), nil))
	})
}

// An OIDC provider that says the address is unverified (email_verified
// false) logs no one in: the callback refuses it, where the same user
// with a verified address gets a token.
func TestOIDCEmailVerifiedFalseRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		user := &shapedUser{MockUser: &mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test"},
			Edit: map[string]any{"email_verified": false}}
		wantPage(t, s.login(user, nil), 400, "oidc_response_unverified_email")
		user.Edit = map[string]any{"email_verified": true}
		tokenFrom(t, s.login(user, nil))
	})
}

// A verified login that names no email address cannot find or create a
// member: the OIDC answer lacks the email.
func TestOIDCEmailMissingRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		user := &shapedUser{MockUser: &mockoidc.MockUser{Subject: "oidc-sub-1"},
			Edit: map[string]any{"email": nil, "email_verified": true}}
		wantPage(t, s.login(user, nil), 400, "oidc_response_email_missing")
	})
}

// Userinfo completes the ID token's claims only when it is about the same
// subject (OpenID Connect Core 5.3.2): an answer about someone else is
// refused; one about the token's subject supplies the email.
func TestOIDCUserinfoAboutAnotherSubjectRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		user := func(infoSub string) *shapedUser {
			return &shapedUser{MockUser: &mockoidc.MockUser{Subject: "oidc-sub-1"},
				Edit: map[string]any{"email": nil, "email_verified": nil},
				Info: map[string]any{"sub": infoSub, "email": "lin@acme.test", "email_verified": true}}
		}
		wantPage(t, s.login(user("oidc-sub-2"), nil), 400, "oidc_response_subject_mismatch")
		token := tokenFrom(t, s.login(user("oidc-sub-1"), nil))
		r := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token}, "")
		apptest.Want(t, r, 200, "")
		if r.Data()["member"].(map[string]any)["email_address"] != "lin@acme.test" {
			t.Fatalf("member: %s", r.Raw)
		}
	})
}

// An ID token must name its subject (OpenID Connect Core 2). One without
// sub was taken, with external_id "", and a userinfo answer naming no
// subject then matched it and was taken whole into the login's attributes:
// an admin who points a connection's userinfo URL at an internal service
// read its answer back through sso/authenticate.
func TestOIDCIDTokenWithoutSubjectRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		user := &shapedUser{MockUser: &mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test", EmailVerified: true},
			Edit: map[string]any{"sub": nil}, Info: map[string]any{"AccessKeyId": "internal-answer"}}
		wantPage(t, s.login(user, nil), 400, "oidc_invalid_id_token")
		user.Edit = nil
		user.Info = map[string]any{"sub": "oidc-sub-1"}
		tokenFrom(t, s.login(user, nil))
	})
}

// A login's state belongs to the connection it started with: the
// provider's answer brought to another connection's callback is refused
// unsolicited_oidc_response.
func TestOIDCStateBoundToConnection(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		// A second connection of the organization, to the same provider.
		r := e.Backend(http.MethodPost, "/v1/b2b/sso/oidc/"+s.orgID, map[string]any{"display_name": "Second"})
		apptest.Want(t, r, 200, "")
		second := r.Body["connection"].(map[string]any)["connection_id"].(string)
		cfg := s.op.Config()
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/oidc/"+s.orgID+"/connections/"+second, map[string]any{
			"issuer": s.op.Issuer(), "client_id": cfg.ClientID, "client_secret": cfg.ClientSecret}), 200, "")
		q := url.Values{"public_token": {s.Project.PublicToken}, "connection_id": {s.connID}}
		r = s.Get("/v1/public/sso/start?" + q.Encode())
		s.op.QueueUser(&mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test", EmailVerified: true})
		r = s.Get(r.Header.Get("Location"))
		back, err := url.Parse(r.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		wantPage(t, s.Get("/v1/b2b/sso/callback/"+second+"?"+back.RawQuery), 400, "unsolicited_oidc_response")
	})
}

// provider_* start parameters pass through to the OIDC provider, except
// the ones this server owns: the start URL cannot replace the state,
// nonce, PKCE challenge, redirect URI, client, response type or scopes.
func TestOIDCStartProviderParamsCannotOverrideOurs(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		q := url.Values{"public_token": {s.Project.PublicToken}, "connection_id": {s.connID}, "provider_prompt": {"login"}}
		for _, k := range []string{"redirect_uri", "state", "nonce", "code_challenge", "code_challenge_method", "client_id",
			"response_type", "scope"} {
			q.Set("provider_"+k, "forged")
		}
		r := s.Get("/v1/public/sso/start?" + q.Encode())
		if r.Status != http.StatusFound {
			t.Fatalf("start: %d %s", r.Status, r.Raw)
		}
		u, err := url.Parse(r.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		got := u.Query()
		if got.Get("prompt") != "login" {
			t.Fatalf("prompt did not pass through: %s", u)
		}
		want := map[string]string{"redirect_uri": e.Srv.URL + "/v1/b2b/sso/callback/" + s.connID, "client_id": s.op.ClientID,
			"response_type": "code", "code_challenge_method": "S256"}
		for k, v := range want {
			if got.Get(k) != v {
				t.Errorf("%s = %q, want %q", k, got.Get(k), v)
			}
		}
		for _, k := range []string{"state", "nonce", "code_challenge", "scope"} {
			if vs := got[k]; len(vs) != 1 || vs[0] == "forged" || vs[0] == "" {
				t.Errorf("%s = %q", k, vs)
			}
		}
	})
}

// A login whose connection stopped being active while the browser was at
// the provider is refused at the callback (sso_connection_not_active): an
// administrator who takes a connection out of service ends its logins
// under way too.
func TestOIDCCallbackRefusedOnceConnectionInactive(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		q := url.Values{"public_token": {s.Project.PublicToken}, "connection_id": {s.connID}}
		r := s.Get("/v1/public/sso/start?" + q.Encode())
		s.op.QueueUser(&mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test", EmailVerified: true})
		r = s.Get(r.Header.Get("Location"))
		// Without a client secret the connection is pending.
		c := e.Backend(http.MethodPut, "/v1/b2b/sso/oidc/"+s.orgID+"/connections/"+s.connID, map[string]any{"client_secret": ""})
		apptest.Want(t, c, 200, "")
		if st := c.Body["connection"].(map[string]any)["status"]; st != "pending" {
			t.Fatalf("status after clearing the secret: %v", st)
		}
		wantPage(t, s.Get(r.Header.Get("Location")), 400, "sso_connection_not_active")
	})
}

// Userinfo fills only the claims the ID token lacks: it cannot lift the
// ID token's email_verified=false, nor replace the ID token's email; and
// its email_verified as the string "false" (Cognito's shape) is refused
// like a boolean false, where the string "true" logs in.
func TestOIDCUserinfoCannotOverrideIDTokenEmail(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		// Each case is a subject of its own, so no case finds a member by
		// an earlier case's registration.
		n := 0
		user := func(edit, info map[string]any) *shapedUser {
			n++
			sub := fmt.Sprintf("oidc-sub-%d", n)
			info["sub"] = sub
			return &shapedUser{MockUser: &mockoidc.MockUser{Subject: sub, Email: "lin@acme.test"}, Edit: edit, Info: info}
		}
		t.Run("ID token unverified, userinfo verified", func(t *testing.T) {
			wantPage(t, s.login(user(map[string]any{"email_verified": false},
				map[string]any{"email": "lin@acme.test", "email_verified": true}), nil), 400, "oidc_response_unverified_email")
		})
		t.Run("userinfo names another email", func(t *testing.T) {
			token := tokenFrom(t, s.login(user(map[string]any{"email_verified": true},
				map[string]any{"email": "ceo@acme.test", "email_verified": true}), nil))
			r := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token}, "")
			apptest.Want(t, r, 200, "")
			if got := r.Data()["member"].(map[string]any)["email_address"]; got != "lin@acme.test" {
				t.Fatalf("member %v, want the ID token's lin@acme.test", got)
			}
		})
		t.Run(`userinfo email_verified "false"`, func(t *testing.T) {
			wantPage(t, s.login(user(map[string]any{"email": nil, "email_verified": nil},
				map[string]any{"email": "lin@acme.test", "email_verified": "false"}), nil), 400, "oidc_response_unverified_email")
		})
		t.Run(`userinfo email_verified "true"`, func(t *testing.T) {
			tokenFrom(t, s.login(user(map[string]any{"email": nil, "email_verified": nil},
				map[string]any{"email": "lin@acme.test", "email_verified": "true"}), nil))
		})
	})
}

// OpenID Connect Core 3.1.3.7 beyond go-oidc's checks: an ID token for
// several audiences must name this client as its authorized party (azp),
// an azp present must be this client, and an iat more than the allowed
// clock skew (90 s) ahead is refused. A token without iat is accepted, as
// go-oidc accepts it. Each refused token passes with the one claim put
// right, so each refusal is the check's.
func TestOIDCIDTokenAuthorizedPartyAndIssueTime(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		client := s.op.Config().ClientID
		lin := func(edit map[string]any) *shapedUser {
			return &shapedUser{MockUser: &mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test", EmailVerified: true}, Edit: edit}
		}
		now := e.Clock.Now()
		for name, tc := range map[string]struct {
			edit map[string]any
			ok   bool
		}{
			"several audiences, no azp":        {map[string]any{"aud": []string{client, "another-client"}}, false},
			"several audiences, another's azp": {map[string]any{"aud": []string{client, "another-client"}, "azp": "another-client"}, false},
			"several audiences, our azp":       {map[string]any{"aud": []string{client, "another-client"}, "azp": client}, true},
			"one audience, another's azp":      {map[string]any{"azp": "another-client"}, false},
			"one audience, an empty azp":       {map[string]any{"azp": ""}, false},
			"one audience, our azp":            {map[string]any{"azp": client}, true},
			"iat ten minutes ahead":            {map[string]any{"iat": now.Add(10 * time.Minute).Unix()}, false},
			"iat two minutes ahead":            {map[string]any{"iat": now.Add(2 * time.Minute).Unix()}, false},
			"iat a minute ahead, within skew":  {map[string]any{"iat": now.Add(time.Minute).Unix()}, true},
			"no iat":                           {map[string]any{"iat": nil}, true},
		} {
			t.Run(name, func(t *testing.T) {
				res := s.login(lin(tc.edit), nil)
				if !tc.ok {
					wantPage(t, res, 400, "oidc_invalid_id_token")
					return
				}
				tokenFrom(t, res)
			})
		}
	})
}
