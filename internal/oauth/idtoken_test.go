package oauth_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/oauth2-proxy/mockoidc"
)

// callbackOf runs one login up to our callback and returns the callback's
// answer: the provider has already signed an ID token for user.
func callbackOf(t *testing.T, e *apptest.Env, m *mockoidc.MockOIDC, provider, org string, user mockoidc.User) apptest.Resp {
	t.Helper()
	r := e.Get(startPath(e, provider, url.Values{"organization_id": {org}}))
	if r.Status != http.StatusFound {
		t.Fatalf("start: %d %s", r.Status, r.Raw)
	}
	m.QueueUser(user)
	status, cb := follow(t, r.Header.Get("Location"))
	if status != http.StatusFound {
		t.Fatalf("provider answered %d %q", status, cb)
	}
	return e.Get(cb)
}

// authenticateAfter redeems the token a successful callback carried.
func authenticateAfter(t *testing.T, e *apptest.Env, cb apptest.Resp) apptest.Resp {
	t.Helper()
	if cb.Status != http.StatusFound {
		t.Fatalf("callback: %d %s", cb.Status, cb.Raw)
	}
	u, err := url.Parse(cb.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")}, "")
}

// The ID token must be for this login (its nonce is the one this login
// sent), for us (aud is our client id) and from the configured issuer
// (go-oidc's issuer check is off, as verifyIssuer replaces it for
// Microsoft's template, so ours is the only one), and name a subject. A
// token the provider signed that fails any of these is refused at the
// callback; the same token unedited passes, so each refusal is the check's.
func TestOAuthIDTokenBoundToLoginClientAndIssuer(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		ada := func(edit map[string]any) *editedUser {
			return &editedUser{MockUser: &mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true}, Edit: edit}
		}
		for name, edit := range map[string]map[string]any{
			"another login's token":  {"nonce": "the-nonce-of-another-login"},
			"another client's token": {"aud": "another-client-id"},
			"another issuer's token": {"iss": "https://issuer.evil.test"},
			"a token without sub":    {"sub": nil},
		} {
			t.Run(name, func(t *testing.T) {
				apptest.Want(t, callbackOf(t, e, m, "google", org, ada(edit)), 400, "oauth_flow_callback_error")
			})
		}
		apptest.Want(t, authenticateAfter(t, e, callbackOf(t, e, m, "google", org, ada(nil))), 200, "")
	})
}

// Google's address counts as verified only when email_verified is true:
// a token saying email_verified=false cannot claim the member who has
// that address.
func TestGoogleEmailVerifiedFalseCannotClaimMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		user := &editedUser{MockUser: &mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test"},
			Edit: map[string]any{"email_verified": false}}
		apptest.Want(t, authenticateAfter(t, e, callbackOf(t, e, m, "google", org, user)), 403, "oauth_unverified_email")
	})
}

// Microsoft ID tokens carry no email_verified: the address is trusted for
// linking only when the tenant vouches for its domain (xms_edov). Without
// it, the token cannot claim the member with that address; with it, it can.
func TestMicrosoftEmailTrustedOnlyWithDomainOwnership(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m, err := mockoidc.Run()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = m.Shutdown() })
		configure(t, e, providers.Microsoft, providers.Config{ClientID: m.ClientID, ClientSecret: m.ClientSecret, Issuer: m.Issuer()})
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		memberID := e.CreateMember(org, "ada@acme.test")
		user := func(edov any) *editedUser {
			return &editedUser{MockUser: &mockoidc.MockUser{Subject: "ms-ada", Email: "ada@acme.test"},
				Edit: map[string]any{"tid": "tenant-1", "xms_edov": edov}}
		}
		apptest.Want(t, authenticateAfter(t, e, callbackOf(t, e, m, "microsoft", org, user(nil))), 403, "oauth_unverified_email")
		apptest.Want(t, authenticateAfter(t, e, callbackOf(t, e, m, "microsoft", org, user(false))), 403, "oauth_unverified_email")
		r := authenticateAfter(t, e, callbackOf(t, e, m, "microsoft", org, user(true)))
		apptest.Want(t, r, 200, "")
		if r.Data()["member_id"] != memberID {
			t.Fatalf("logged in as: %s", r.Raw)
		}
	})
}

// A Microsoft token without an email claim takes preferred_username as
// the address, never as verified: xms_edov and email_verified speak of the
// email claim, and preferred_username is a sign-in name any tenant's admin
// sets. A token from another tenant naming a member's address there
// cannot log in as that member, whatever those claims say.
func TestMicrosoftPreferredUsernameIsNeverVerified(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m, err := mockoidc.Run()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = m.Shutdown() })
		configure(t, e, providers.Microsoft, providers.Config{ClientID: m.ClientID, ClientSecret: m.ClientSecret, Issuer: m.Issuer()})
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		for _, claim := range []string{"xms_edov", "email_verified"} {
			u := &editedUser{MockUser: &mockoidc.MockUser{Subject: "ms-mallory"},
				Edit: map[string]any{"email": nil, "email_verified": nil, "tid": "tenant-evil", "preferred_username": "ada@acme.test", claim: true}}
			apptest.Want(t, authenticateAfter(t, e, callbackOf(t, e, m, "microsoft", org, u)), 403, "oauth_unverified_email")
		}
	})
}

// An ID token without an email is completed from userinfo only when
// userinfo is about the same subject: an answer about someone else (here,
// a member's address) is refused at the callback.
func TestOAuthUserinfoMustBeAboutTheTokenSubject(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		memberID := e.CreateMember(org, "ada@acme.test")
		user := func(infoSub string) *editedUser {
			return &editedUser{MockUser: &mockoidc.MockUser{Subject: "g-mallory"},
				Edit: map[string]any{"email": nil, "email_verified": nil},
				Info: map[string]any{"sub": infoSub, "email": "ada@acme.test", "email_verified": true}}
		}
		apptest.Want(t, callbackOf(t, e, m, "google", org, user("g-ada")), 400, "oauth_flow_callback_error")
		// Userinfo about the token's own subject completes the identity.
		r := authenticateAfter(t, e, callbackOf(t, e, m, "google", org, user("g-mallory")))
		apptest.Want(t, r, 200, "")
		if r.Data()["member_id"] != memberID {
			t.Fatalf("logged in as: %s", r.Raw)
		}
	})
}

// msTemplate is the issuer of Microsoft's multi-tenant discovery document.
const msTemplate = "https://login.microsoftonline.test/{tenantid}/v2.0"

// startMicrosoftMultiTenant runs mockoidc as the project's Microsoft,
// publishing the multi-tenant discovery document: its issuer is
// msTemplate, which each token's own tenant (tid) fills in.
func startMicrosoftMultiTenant(t *testing.T, e *apptest.Env) *mockoidc.MockOIDC {
	t.Helper()
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	err = m.AddMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != mockoidc.DiscoveryEndpoint {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			doc := map[string]any{}
			if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			doc["issuer"] = msTemplate
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(doc)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ln, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	configure(t, e, providers.Microsoft, providers.Config{ClientID: m.ClientID, ClientSecret: m.ClientSecret, Issuer: m.Issuer()})
	return m
}

// With Microsoft's multi-tenant issuer template, a token is accepted only
// from the issuer of its own tenant (tid): a token whose tid names one
// tenant and whose iss another is refused, and so is one without tid
// (whose iss would be the template with an empty tenant).
func TestMicrosoftMultiTenantIssuerIsTheTokensTenant(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startMicrosoftMultiTenant(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		memberID := e.CreateMember(org, "ada@acme.test")
		issuerOf := func(tenant string) string { return strings.ReplaceAll(msTemplate, "{tenantid}", tenant) }
		user := func(tid, iss any) *editedUser {
			return &editedUser{MockUser: &mockoidc.MockUser{Subject: "ms-ada", Email: "ada@acme.test"},
				Edit: map[string]any{"tid": tid, "iss": iss, "xms_edov": true}}
		}
		apptest.Want(t, callbackOf(t, e, m, "microsoft", org, user("tenant-1", issuerOf("tenant-2"))), 400, "oauth_flow_callback_error")
		apptest.Want(t, callbackOf(t, e, m, "microsoft", org, user(nil, issuerOf(""))), 400, "oauth_flow_callback_error")
		r := authenticateAfter(t, e, callbackOf(t, e, m, "microsoft", org, user("tenant-1", issuerOf("tenant-1"))))
		apptest.Want(t, r, 200, "")
		if r.Data()["member_id"] != memberID {
			t.Fatalf("logged in as: %s", r.Raw)
		}
	})
}
