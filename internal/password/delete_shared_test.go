package password_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A password belongs to an email address and serves its memberships in
// every organization of the project. These tests are about deleting one for
// a member session (the SDK face, or the backend with the member session
// header): refused whenever a member of another organization has the
// address, whoever verified what, while the project secret alone may
// always.

// sharedFixture is victim@corp.test, a verified member of corp with a
// password, and evil, another organization whose admin boss is logged in.
type sharedFixture struct {
	corp, evil       string
	victimID, pwID   string
	boss             string
	passwordsOfEvil  string // the backend's deletion route through evil
	passwordsOfCorp  string // and through corp
	sdkPasswordRoute string
}

func newSharedFixture(e *apptest.Env) *sharedFixture {
	f := &sharedFixture{corp: e.CreateOrg("corp", "NOT_ALLOWED", nil), evil: e.CreateOrg("evil", "NOT_ALLOWED", nil)}
	f.victimID = e.CreateVerifiedMember(f.corp, "victim@corp.test")
	e.SetPassword(f.corp, "victim@corp.test", apptest.StrongPassword)
	f.pwID = e.PasswordID(f.corp, f.victimID)
	e.CreateAdmin(f.evil, "boss@evil.test")
	f.boss = e.SessionFor(f.evil, "boss@evil.test")
	f.passwordsOfEvil = "/v1/b2b/organizations/" + f.evil + "/members/passwords/"
	f.passwordsOfCorp = "/v1/b2b/organizations/" + f.corp + "/members/passwords/"
	f.sdkPasswordRoute = "/b2b/organizations/members/passwords/"
	return f
}

// asMember calls the backend with the project secret and a member session.
func asMember(e *apptest.Env, method, path, session string) apptest.Resp {
	return e.Do(method, path, nil, http.Header{"X-Stytch-Member-Session": {session}}, e.Project.Project.ID, e.Project.Secret)
}

// wantShared wants the refusal that names the password as shared.
func wantShared(t *testing.T, r apptest.Resp) {
	t.Helper()
	apptest.Want(t, r, 403, "unauthorized_action")
	if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, "shared with other organizations") {
		t.Fatalf("refusal message: %s", r.Raw)
	}
}

// wantPasswordKept checks the victim still logs in to corp by password.
func (f *sharedFixture) wantPasswordKept(t *testing.T, e *apptest.Env) {
	t.Helper()
	if r := e.PasswordLogin(f.corp, "victim@corp.test", apptest.StrongPassword); r.Status != 200 {
		t.Fatalf("the victim's password login after refused deletions: %s", r.Raw)
	}
}

// An admin of another organization creates a member with the victim's
// address (unverified, nothing sent): neither they nor the victim's own
// organization may then delete the password through a session, on either
// face, since it serves both; the backend with the project secret may,
// through either membership.
func TestDeletePasswordSharedWithALookAlikeMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := newSharedFixture(e)
		r := e.SDK(http.MethodPost, "/b2b/organizations/members", map[string]any{"email_address": "victim@corp.test"}, f.boss)
		if r.Status != 200 || apptest.MemberOf(r.Data())["email_address_verified"] != false {
			t.Fatalf("create the look-alike member: %s", r.Raw)
		}

		wantShared(t, e.SDK(http.MethodDelete, f.sdkPasswordRoute+f.pwID, nil, f.boss))
		wantShared(t, asMember(e, http.MethodDelete, f.passwordsOfEvil+f.pwID, f.boss))
		f.wantPasswordKept(t, e)

		// The victim's own organization shares it now just the same.
		e.CreateAdmin(f.corp, "admin@corp.test")
		admin := e.SessionFor(f.corp, "admin@corp.test")
		wantShared(t, e.SDK(http.MethodDelete, f.sdkPasswordRoute+f.pwID, nil, admin))
		wantShared(t, e.SDK(http.MethodDelete, f.sdkPasswordRoute+f.pwID, nil, e.SessionFor(f.corp, "victim@corp.test")))
		f.wantPasswordKept(t, e)

		// The project secret alone keeps full power, through any membership.
		if r := e.Backend(http.MethodDelete, f.passwordsOfEvil+f.pwID, nil); r.Status != 200 || e.PasswordID(f.corp, f.victimID) != "" {
			t.Fatalf("deletion with the project secret through evil: %s", r.Raw)
		}
		apptest.Want(t, e.PasswordLogin(f.corp, "victim@corp.test", apptest.StrongPassword), 401, "unauthorized_credentials")
		e.SetPassword(f.corp, "victim@corp.test", apptest.StrongPassword)
		if r := e.Backend(http.MethodDelete, f.passwordsOfCorp+e.PasswordID(f.corp, f.victimID), nil); r.Status != 200 ||
			e.PasswordID(f.corp, f.victimID) != "" {
			t.Fatalf("deletion with the project secret through corp: %s", r.Raw)
		}
	})
}

// The same admin gives their organization an OIDC connection, from the
// SDK, to an identity provider they run, and logs in through it as the
// victim: the login provisions a member with the address and marks it
// verified on the provider's word, with a fresh session. That member's
// verified address is no hold on the password either: the admin's
// deletion and the look-alike's deletion of "its own" password are
// refused on both faces, and the victim keeps their password.
func TestDeletePasswordThroughAnSSOLookAlike(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		// mockoidc stamps its tokens with the real clock.
		e.Clock.Advance(time.Until(e.Clock.Now()) * -1)
		op, err := mockoidc.Run()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = op.Shutdown() })
		f := newSharedFixture(e)

		r := e.SDK(http.MethodPost, "/b2b/sso/oidc", map[string]any{"display_name": "Evil IdP"}, f.boss)
		apptest.Want(t, r, 200, "")
		connID, _ := r.Data()["connection"].(map[string]any)["connection_id"].(string)
		cfg := op.Config()
		r = e.SDK(http.MethodPut, "/b2b/sso/oidc/"+connID, map[string]any{"issuer": op.Issuer(), "client_id": cfg.ClientID,
			"client_secret": cfg.ClientSecret}, f.boss)
		if r.Status != 200 || r.Data()["connection"].(map[string]any)["status"] != "active" {
			t.Fatalf("configure the connection: %s", r.Raw)
		}

		q := url.Values{"public_token": {e.Project.PublicToken}, "connection_id": {connID}}
		r = e.Get("/v1/public/sso/start?" + q.Encode())
		if r.Status != http.StatusFound {
			t.Fatalf("start: %s", r.Raw)
		}
		op.QueueUser(&mockoidc.MockUser{Subject: "not-the-victim", Email: "victim@corp.test", EmailVerified: true})
		if r = e.Get(r.Header.Get("Location")); r.Status != http.StatusFound {
			t.Fatalf("provider: %s", r.Raw)
		}
		if r = e.Get(r.Header.Get("Location")); r.Status != http.StatusFound {
			t.Fatalf("callback: %s", r.Raw)
		}
		token := apptest.LinkToken(t, r.Header.Get("Location"), "", "sso")
		r = e.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token, "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		fake := apptest.MemberOf(r.Data())
		if fake["organization_id"] != f.evil || fake["email_address_verified"] != true || fake["member_password_id"] != f.pwID {
			t.Fatalf("the SSO look-alike: %v", fake)
		}
		lookAlike := r.Data()["session_token"].(string)

		wantShared(t, e.SDK(http.MethodDelete, f.sdkPasswordRoute+f.pwID, nil, f.boss))
		wantShared(t, asMember(e, http.MethodDelete, f.passwordsOfEvil+f.pwID, f.boss))
		wantShared(t, e.SDK(http.MethodDelete, f.sdkPasswordRoute+f.pwID, nil, lookAlike))
		wantShared(t, asMember(e, http.MethodDelete, f.passwordsOfEvil+f.pwID, lookAlike))
		f.wantPasswordKept(t, e)

		if r := e.Backend(http.MethodDelete, f.passwordsOfEvil+f.pwID, nil); r.Status != 200 || e.PasswordID(f.corp, f.victimID) != "" {
			t.Fatalf("deletion with the project secret: %s", r.Raw)
		}
	})
}

// Every member of another organization with the address counts, whatever
// its status: a pending or invited one would log in with this password,
// and a deleted one (its address verified) may be reactivated.
func TestDeletePasswordSharedWhateverTheOtherMembersStatus(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := newSharedFixture(e)
		e.CreateAdmin(f.corp, "admin@corp.test")
		admin := e.SessionFor(f.corp, "admin@corp.test")
		for _, tc := range []struct {
			status string
			make   func(org string) (memberID string)
		}{
			{"pending", func(org string) string {
				r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members", map[string]any{
					"email_address": "victim@corp.test", "create_member_as_pending": true})
				apptest.Want(t, r, 200, "")
				return r.Body["member_id"].(string)
			}},
			{"invited", func(org string) string {
				r := e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite", map[string]any{
					"organization_id": org, "email_address": "victim@corp.test"})
				apptest.Want(t, r, 200, "")
				return r.Body["member_id"].(string)
			}},
			{"deleted", func(org string) string {
				id := e.CreateVerifiedMember(org, "victim@corp.test")
				e.DeleteMember(org, id)
				return id
			}},
		} {
			t.Run(tc.status, func(t *testing.T) {
				other := e.CreateOrg("other-"+tc.status, "NOT_ALLOWED", nil)
				if m := e.MemberByID(other, tc.make(other)); m["status"] != tc.status {
					t.Fatalf("the other organization's member: %v", m)
				}
				wantShared(t, e.SDK(http.MethodDelete, f.sdkPasswordRoute+f.pwID, nil, admin))
				wantShared(t, asMember(e, http.MethodDelete, f.passwordsOfCorp+f.pwID, admin))
				f.wantPasswordKept(t, e)
				// Gone from there (the organization with it), the address is
				// corp's alone again, for the next case.
				apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+other, nil), 200, "")
			})
		}
		if r := e.SDK(http.MethodDelete, f.sdkPasswordRoute+f.pwID, nil, admin); r.Status != 200 || e.PasswordID(f.corp, f.victimID) != "" {
			t.Fatalf("deletion once the address is corp's alone: %s", r.Raw)
		}
	})
}

// A member whose address is in one organization only may have the password
// deleted by an admin there or by themselves, on either face.
func TestDeletePasswordOfAnAddressInOneOrganization(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := newSharedFixture(e)
		e.CreateAdmin(f.corp, "admin@corp.test")
		admin := e.SessionFor(f.corp, "admin@corp.test")
		setPassword := func() {
			t.Helper()
			e.SetPassword(f.corp, "victim@corp.test", apptest.StrongPassword)
			f.pwID = e.PasswordID(f.corp, f.victimID)
		}
		for name, del := range map[string]func() apptest.Resp{
			"admin, SDK":     func() apptest.Resp { return e.SDK(http.MethodDelete, f.sdkPasswordRoute+f.pwID, nil, admin) },
			"admin, backend": func() apptest.Resp { return asMember(e, http.MethodDelete, f.passwordsOfCorp+f.pwID, admin) },
			"self, SDK": func() apptest.Resp {
				return e.SDK(http.MethodDelete, f.sdkPasswordRoute+f.pwID, nil, e.SessionFor(f.corp, "victim@corp.test"))
			},
			"self, backend": func() apptest.Resp {
				return asMember(e, http.MethodDelete, f.passwordsOfCorp+f.pwID, e.SessionFor(f.corp, "victim@corp.test"))
			},
		} {
			t.Run(name, func(t *testing.T) {
				setPassword()
				if r := del(); r.Status != 200 || e.PasswordID(f.corp, f.victimID) != "" {
					t.Fatalf("deletion: %s", r.Raw)
				}
				apptest.Want(t, e.PasswordLogin(f.corp, "victim@corp.test", apptest.StrongPassword), 401, "unauthorized_credentials")
			})
		}
	})
}

// A password no member of another organization has may still serve
// someone: one set by a discovery reset for an address that is a member
// nowhere yet. An admin's member record with the address, unverified, is
// no hold on it; once that member proves the address here, it is theirs.
func TestDeletePasswordOfNoMembershipNeedsTheAddressProvenHere(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		evil := e.CreateOrg("evil", "NOT_ALLOWED", nil)
		e.CreateAdmin(evil, "boss@evil.test")
		boss := e.SessionFor(evil, "boss@evil.test")

		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset/start", map[string]any{"email_address": "solo@free.test"}, ""), 200, "")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset", map[string]any{
			"password_reset_token": e.ResetLink("solo@free.test", "discovery"), "password": apptest.StrongPassword}, ""), 200, "")

		r := e.SDK(http.MethodPost, "/b2b/organizations/members", map[string]any{"email_address": "solo@free.test"}, boss)
		apptest.Want(t, r, 200, "")
		m := apptest.MemberOf(r.Data())
		memberID, pwID := m["member_id"].(string), m["member_password_id"].(string)
		if pwID == "" || m["email_address_verified"] != false {
			t.Fatalf("the look-alike member: %v", m)
		}
		r = e.SDK(http.MethodDelete, "/b2b/organizations/members/passwords/"+pwID, nil, boss)
		apptest.Want(t, r, 403, "unauthorized_action")
		if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, "has not verified") {
			t.Fatalf("refusal message: %s", r.Raw)
		}
		if e.PasswordID(evil, memberID) != pwID {
			t.Fatal("a refused deletion removed the password")
		}

		// The person behind the address logs in here (proving it): theirs.
		e.SessionFor(evil, "solo@free.test")
		if r := e.SDK(http.MethodDelete, "/b2b/organizations/members/passwords/"+pwID, nil, boss); r.Status != 200 ||
			e.PasswordID(evil, memberID) != "" {
			t.Fatalf("deletion once the address is proven here: %s", r.Raw)
		}
	})
}
