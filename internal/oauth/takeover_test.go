package oauth_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/oauth"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/oauth2-proxy/mockoidc"
)

// tenantOrg is an organization admitting GitHub organization 77 by OAuth
// tenant JIT, and nobody by email.
func tenantOrg(e *apptest.Env) string {
	return e.CreateOrg("acme", "NOT_ALLOWED", map[string]any{"oauth_tenant_jit_provisioning": "RESTRICTED",
		"allowed_oauth_tenants": map[string]any{"github": []string{"77"}}})
}

// useGitHub configures GitHub as a provider whose account 666, a member of
// organization 77, has the primary address email, verified or not.
func useGitHub(t *testing.T, e *apptest.Env, email string, verified bool) {
	t.Helper()
	configure(t, e, providers.GitHub, newFakeAPI(t, map[string]any{
		"/user":        map[string]any{"id": 666, "login": "mallory"},
		"/user/orgs":   []any{map[string]any{"id": 77, "login": "acme"}},
		"/user/emails": []any{map[string]any{"email": email, "primary": true, "verified": verified}},
	}).config())
}

// gitHubLogin runs a GitHub login to org through the SDK face.
func gitHubLogin(t *testing.T, e *apptest.Env, org string) apptest.Resp {
	t.Helper()
	u := browse(t, e, startPath(e, "github", url.Values{"organization_id": {org}}))
	return e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")}, "")
}

// squatterLogin admits, by tenant JIT into tenantOrg, a GitHub user whose
// unverified primary address is the CFO's: the squatter the tests of an
// owner's later proof start from.
func squatterLogin(t *testing.T, e *apptest.Env) (string, apptest.Resp) {
	t.Helper()
	useGitHub(t, e, "cfo@acme.test", false)
	org := tenantOrg(e)
	r := gitHubLogin(t, e, org)
	apptest.Want(t, r, 200, "")
	return org, r
}

// registrations lists a member's oauth_registrations as provider/subject.
func registrations(e *apptest.Env, org, memberID string) (out []string) {
	regs, _ := e.MemberByID(org, memberID)["oauth_registrations"].([]any)
	for _, r := range regs {
		m := r.(map[string]any)
		out = append(out, str(m, "provider_type")+"/"+str(m, "provider_subject"))
	}
	return out
}

// firstRegistration is the id of the only oauth_registrations entry of an
// authenticate answer's member ("" unless there is exactly one).
func firstRegistration(r apptest.Resp) string {
	regs, _ := r.Data()["member"].(map[string]any)["oauth_registrations"].([]any)
	if len(regs) != 1 {
		return ""
	}
	return str(regs[0].(map[string]any), "member_oauth_registration_id")
}

// The pre-account takeover of the audit: someone in an admitted tenant
// sets their GitHub account's primary address, unverified, to the CFO's,
// before the CFO is a member. Tenant JIT admits them as cfo@acme.test,
// unverified. When the CFO proves the address (a Google login that
// verifies it, or an email code), the member becomes the CFO's, and the
// GitHub registration, which never proved the address, is deleted in that
// transaction (an audit event says so): the squatter's next GitHub login
// no longer opens the member. Before the CFO came, it did.
func TestUnprovenTenantRegistrationEndsWhenTheOwnerProvesTheAddress(t *testing.T) {
	for _, proof := range []string{"google", "email code"} {
		t.Run(proof, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				m := startGoogle(t, e)
				org, r := squatterLogin(t, e)
				memberID := r.Data()["member_id"].(string)
				if str(r.Data(), "member", "email_address") != "cfo@acme.test" || r.Data()["member"].(map[string]any)["email_address_verified"] != false {
					t.Fatalf("admitted: %s", r.Raw)
				}
				// Nobody has proven the address yet: the account keeps logging in.
				r = gitHubLogin(t, e, org)
				apptest.Want(t, r, 200, "")
				if r.Data()["member_id"] != memberID {
					t.Fatalf("second login: %s", r.Raw)
				}

				var want []string
				switch proof {
				case "google":
					r = authenticateAfter(t, e, callbackOf(t, e, m, "google", org,
						&mockoidc.MockUser{Subject: "g-cfo", Email: "cfo@acme.test", EmailVerified: true}))
					apptest.Want(t, r, 200, "")
					if r.Data()["member_id"] != memberID {
						t.Fatalf("the CFO's login: %s", r.Raw)
					}
					want = []string{"google/g-cfo"}
				case "email code":
					if d := e.EmailLogin(org, "cfo@acme.test"); d["member_id"] != memberID {
						t.Fatalf("the CFO's login: %v", d)
					}
				}
				if got := registrations(e, org, memberID); len(got) != len(want) || (len(want) > 0 && got[0] != want[0]) {
					t.Fatalf("registrations after the CFO's proof: %v, want %v", got, want)
				}
				if v := e.MemberByID(org, memberID)["email_address_verified"]; v != true {
					t.Fatalf("email_address_verified %v", v)
				}
				events, err := e.App.Audit.List(t.Context(), audit.Filter{ProjectID: e.Project.Project.ID, Type: audit.FactorChange})
				if err != nil {
					t.Fatal(err)
				}
				if len(events) != 1 || events[0].Method != oauth.RegistrationRemoved || events[0].MemberID != memberID ||
					events[0].Details["provider"] != "github" || events[0].Details["provider_subject"] != "666" {
					t.Fatalf("audit: %+v", events)
				}

				apptest.Want(t, gitHubLogin(t, e, org), 403, "oauth_unverified_email")
			})
		})
	}
}

// A registration that never proved its member's address, on a member
// whose address is verified, is refused: an unverified address never
// opens a member whose address someone proved. Registrations recorded
// before they said whether they proved it start unproven, and their
// members may be verified already: the member's verification is set
// straight in the database here, as such a version left it. A login whose
// provider now verifies the member's address is the account's own proof:
// it is accepted and the registration (the same one) proves the address
// from then on.
func TestUnprovenRegistrationOfAVerifiedMemberIsRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, r := squatterLogin(t, e)
		memberID := r.Data()["member_id"].(string)
		regID := firstRegistration(r)
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE members SET email_address_verified = $1 WHERE member_id = $2`,
			true, memberID); err != nil {
			t.Fatal(err)
		}
		apptest.Want(t, gitHubLogin(t, e, org), 403, "oauth_unverified_email")

		useGitHub(t, e, "cfo@acme.test", true)
		r = gitHubLogin(t, e, org)
		apptest.Want(t, r, 200, "")
		if r.Data()["member_id"] != memberID || firstRegistration(r) != regID {
			t.Fatalf("verified login: %s", r.Raw)
		}
		// Proven once, it stays proven.
		useGitHub(t, e, "cfo@acme.test", false)
		apptest.Want(t, gitHubLogin(t, e, org), 200, "")
	})
}

// An account admitted with an unverified address whose provider later
// verifies it proves the address itself: its registration is kept (the
// same one) when that login verifies the member, and nothing is removed.
func TestRegistrationThatProvesTheAddressIsKept(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, r := squatterLogin(t, e)
		regID := firstRegistration(r)
		useGitHub(t, e, "cfo@acme.test", true)
		r = gitHubLogin(t, e, org)
		apptest.Want(t, r, 200, "")
		if r.Data()["member"].(map[string]any)["email_address_verified"] != true ||
			firstRegistration(r) != regID {
			t.Fatalf("verified login: %s", r.Raw)
		}
		if n := e.Count(`SELECT COUNT(*) FROM audit_events WHERE event_type = $1`, audit.FactorChange); n != 0 {
			t.Fatalf("%d factor changes recorded", n)
		}
	})
}
