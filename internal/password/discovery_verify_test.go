package password_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// addressMethods is primary_required after a returning password where the
// address must be verified (session.AddressMethods).
var addressMethods = []string{"magic_link", "email_otp", "google_oauth", "microsoft_oauth"}

// wantUnverified fails unless the create or exchange answer d is
// member_authenticated false with no session, ist as its IST (when given),
// and primary_required listing the methods that verify the address.
func wantUnverified(t *testing.T, what string, d map[string]any, ist string) {
	t.Helper()
	pr, _ := d["primary_required"].(map[string]any)
	if d["member_authenticated"] != false || d["member_session"] != nil || d["session_token"] != "" ||
		d["intermediate_session_token"] == "" || (ist != "" && d["intermediate_session_token"] != ist) ||
		pr == nil || !slices.Equal(toStrings(pr["allowed_auth_methods"]), addressMethods) {
		t.Fatalf("%s: %v", what, d)
	}
}

// emailOTPWithIST logs in to org by email code with an IST on the SDK face.
func emailOTPWithIST(t *testing.T, e *apptest.Env, org, email, ist string) apptest.Resp {
	t.Helper()
	apptest.Want(t, e.SDK(http.MethodPost, "/b2b/otps/email/login_or_signup", map[string]any{"organization_id": org,
		"email_address": email}, ""), 200, "")
	_, codes := e.LastMail(email)
	return e.SDK(http.MethodPost, "/b2b/otps/email/authenticate", map[string]any{"organization_id": org, "email_address": email,
		"code": codes[0], "intermediate_session_token": ist, "session_duration_minutes": 60}, "")
}

// A returning password does not verify the address as it happens (the API
// family: "returning password auth" gets member_authenticated false from
// discovery's create). The organization and its admin member are created,
// the address stays unverified, and primary_required lists the methods
// that verify it; logging in by one of them with the answered IST
// completes the login with both factors. On both faces.
func TestPasswordDiscoveryCreateNeedsAVerifyingLogin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		home := e.CreateOrg("home", "NOT_ALLOWED", nil)
		e.CreateMember(home, "ada@corp.test")
		e.SetPassword(home, "ada@corp.test", apptest.StrongPassword)

		for _, face := range []string{"sdk", "backend"} {
			ist := pwDiscover(e, "ada@corp.test", apptest.StrongPassword).Data()["intermediate_session_token"].(string)
			body := map[string]any{"intermediate_session_token": ist, "organization_slug": "new-" + face, "session_duration_minutes": 60}
			var d map[string]any
			if face == "sdk" {
				r := e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", body, "")
				apptest.Want(t, r, 200, "")
				d = r.Data()
			} else {
				r := e.Backend(http.MethodPost, "/v1/b2b/discovery/organizations/create", body)
				apptest.Want(t, r, 200, "")
				d = r.Body
			}
			wantUnverified(t, face+" create", d, "")
			m := d["member"].(map[string]any)
			org := d["organization"].(map[string]any)["organization_id"].(string)
			if m["email_address"] != "ada@corp.test" || m["email_address_verified"] != false || m["status"] != "active" ||
				d["member_id"] != m["member_id"] || m["organization_id"] != org {
				t.Fatalf("%s create: member %v", face, m)
			}
			if !slices.ContainsFunc(m["roles"].([]any), func(r any) bool { return r.(map[string]any)["role_id"] == "stytch_admin" }) {
				t.Fatalf("%s create: the creator is not the admin: %v", face, m["roles"])
			}
			// The discovery IST is spent; the answered one finishes the login.
			apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
				"intermediate_session_token": ist, "organization_id": home}, ""), 404, "intermediate_session_not_found")
			r := emailOTPWithIST(t, e, org, "ada@corp.test", d["intermediate_session_token"].(string))
			apptest.Want(t, r, 200, "")
			if got := pwFactorTypes(r.Data()); !slices.Equal(got, []string{"password", "email_otp"}) {
				t.Fatalf("%s: completing login factors %v", face, got)
			}
			if r.Data()["member"].(map[string]any)["email_address_verified"] != true {
				t.Fatalf("%s: completed login left the address unverified", face)
			}
		}
	})
}

// A password just set through the discovery reset link verified the
// address (its email went there): discovery's create logs in at once.
func TestPasswordDiscoveryResetVerifies(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset/start", map[string]any{"email_address": "zed@corp.test"}, ""), 200, "")
		r := e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset", map[string]any{
			"password_reset_token": e.ResetLink("zed@corp.test", "discovery"), "password": apptest.StrongPassword}, "")
		apptest.Want(t, r, 200, "")
		r = e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{
			"intermediate_session_token": r.Data()["intermediate_session_token"], "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		if r.Data()["member_authenticated"] != true || r.Data()["member_session"] == nil ||
			r.Data()["member"].(map[string]any)["email_address_verified"] != true {
			t.Fatalf("create after a discovery reset: %s", r.Raw)
		}
	})
}

// Joining by email JIT needs a factor that verifies the address (the API
// family: JIT provisioning "but did not log in via a method that provides
// email verification" gets member_authenticated false). After a returning
// password, discovery lists the domain's organization with
// primary_required, and the exchange answers member_authenticated false
// with the same IST, unspent, and creates no member: one created would
// let the same password in through passwords/authenticate. The IST then
// still serves an organization she belongs to, or an email code into the
// domain's organization, which admits her with both factors. On both
// faces.
func TestPasswordDiscoveryJITNeedsAVerifyingLogin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		home := e.CreateOrg("home", "NOT_ALLOWED", nil)
		e.CreateMember(home, "ada@corp.test")
		e.SetPassword(home, "ada@corp.test", apptest.StrongPassword)
		domain := e.CreateOrg("domain-co", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"corp.test"}})
		e.CreateVerifiedMember(domain, "zoe@corp.test")

		for _, face := range []string{"sdk", "backend"} {
			d := pwDiscover(e, "ada@corp.test", apptest.StrongPassword).Data()
			ist := d["intermediate_session_token"].(string)
			for _, o := range d["discovered_organizations"].([]any) {
				o := o.(map[string]any)
				slug := o["organization"].(map[string]any)["organization_slug"]
				pr, _ := o["primary_required"].(map[string]any)
				switch {
				case slug == "domain-co" && (pr == nil || !slices.Equal(toStrings(pr["allowed_auth_methods"]), addressMethods)):
					t.Fatalf("domain entry: %v", o)
				case slug == "home" && pr != nil:
					t.Fatalf("home entry: %v", o)
				}
			}
			body := map[string]any{"intermediate_session_token": ist, "organization_id": domain, "session_duration_minutes": 60}
			var got map[string]any
			if face == "sdk" {
				r := e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", body, "")
				apptest.Want(t, r, 200, "")
				got = r.Data()
			} else {
				r := e.Backend(http.MethodPost, "/v1/b2b/discovery/intermediate_sessions/exchange", body)
				apptest.Want(t, r, 200, "")
				got = r.Body
			}
			wantUnverified(t, face+" exchange", got, ist)
			if got["member"] != nil || got["organization"].(map[string]any)["organization_id"] != domain {
				t.Fatalf("%s exchange: %v", face, got)
			}
			if n := e.Count(`SELECT COUNT(*) FROM members WHERE organization_id = $1 AND email_address = $2`, domain, "ada@corp.test"); n != 0 {
				t.Fatalf("%s exchange created a member", face)
			}
			apptest.Want(t, e.PasswordLogin(domain, "ada@corp.test", apptest.StrongPassword), 401, "unauthorized_credentials")
			if face == "sdk" {
				// The IST still logs her in where she is a member.
				r := e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
					"intermediate_session_token": ist, "organization_id": home, "session_duration_minutes": 60}, "")
				apptest.Want(t, r, 200, "")
				if r.Data()["member_session"] == nil {
					t.Fatalf("exchange into home: %s", r.Raw)
				}
				continue
			}
			// An email code into the domain's organization with the IST
			// admits her, carrying the password factor.
			r := emailOTPWithIST(t, e, domain, "ada@corp.test", ist)
			apptest.Want(t, r, 200, "")
			if got := pwFactorTypes(r.Data()); !slices.Equal(got, []string{"password", "email_otp"}) {
				t.Fatalf("JIT by email code: factors %v", got)
			}
		}
	})
}
