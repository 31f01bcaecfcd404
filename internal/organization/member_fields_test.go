package organization_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// memberPath is the backend path of a member of org.
func memberPath(org, id string) string { return "/v1/b2b/organizations/" + org + "/members/" + id }

// wantFields fails unless the member object has each field as given.
func wantFields(t *testing.T, m map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if m[k] != v {
			t.Fatalf("member %s = %v, want %v (member %v)", k, m[k], v, m)
		}
	}
}

// The member update takes the fields the Node client and the browser SDK
// declare (api-reference 3.11, 5.4) and changes the member, or refuses
// them: none is answered 200 with nothing changed. The MFA phone number
// is stored normalised and unverified, a member has one number (another
// takes deleting it first), and a default MFA method needs a verified
// factor of it.
func TestMemberUpdateTakesDeclaredFields(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		path := memberPath(org, mid)

		r := e.Backend(http.MethodPut, path, map[string]any{"mfa_enrolled": true, "mfa_phone_number": "+1 (202) 555-0123",
			"external_id": " crm|ada.1_x-y "})
		apptest.Want(t, r, 200, "")
		want := map[string]any{"mfa_enrolled": true, "mfa_phone_number": "+12025550123", "mfa_phone_number_verified": false,
			"external_id": "crm|ada.1_x-y", "default_mfa_method": ""}
		wantFields(t, r.Body["member"].(map[string]any), want)
		wantFields(t, e.MemberByID(org, mid), want)

		// An unverified number is no factor yet, so it cannot be the default.
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"default_mfa_method": "sms_otp"}), 400, "default_mfa_member_missing_factor")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"default_mfa_method": "email"}), 400, "invalid_mfa_default_method")
		// The same number again is no change; another one needs the old one deleted first.
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"mfa_phone_number": "+12025550123"}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"mfa_phone_number": "+12025550199"}), 400, "invalid_request")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"mfa_phone_number": "2025550199"}), 400, "invalid_phone_number")
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/mfa_phone_numbers/"+mid, nil), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"mfa_phone_number": "+12025550199", "mfa_enrolled": false}), 200, "")
		wantFields(t, e.MemberByID(org, mid), map[string]any{"mfa_phone_number": "+12025550199", "mfa_enrolled": false,
			"external_id": "crm|ada.1_x-y"})

		// A refused field refuses the whole update.
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"name": "Ada", "default_mfa_method": "totp"}), 400,
			"default_mfa_member_missing_factor")
		if m := e.MemberByID(org, mid); m["name"] != "" {
			t.Fatalf("a refused update renamed the member: %v", m)
		}
	})
}

// A number set by an update is the member's to prove: it is no factor at
// login (member_options stays null), the member verifies it with an SMS
// code as an enrollment does, and no other member of the organization
// may take it meanwhile. It can then be the default method.
func TestMemberMFAPhoneSetByUpdateIsProvenByAnSMSCode(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid := e.MFAMember()
		other := e.CreateMember(org, "bob@secure.test")
		apptest.Want(t, e.Backend(http.MethodPut, memberPath(org, mid), map[string]any{"mfa_phone_number": "+12025550123"}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, memberPath(org, other), map[string]any{"mfa_phone_number": "+12025550123"}), 400,
			"duplicate_member_phone_number")
		bobIST, _ := e.MFALogin(org, "bob@secure.test")
		apptest.Want(t, e.SMSSend(org, other, bobIST, "+12025550123"), 400, "duplicate_member_phone_number")

		ist, req := e.MFALogin(org, "ada@secure.test")
		if req["member_options"] != nil {
			t.Fatalf("an unverified number is offered as a factor: %v", req)
		}
		apptest.Want(t, e.SMSSend(org, mid, ist, "+12025550123"), 200, "")
		r := e.SMSAuth(org, mid, ist, e.LastSMS("+12025550123"), nil)
		apptest.Want(t, r, 200, "")
		wantFields(t, e.MemberByID(org, mid), map[string]any{"mfa_phone_number": "+12025550123", "mfa_phone_number_verified": true,
			"default_mfa_method": "sms_otp"})

		// A second factor, then the default moves between the two.
		token := r.Data()["session_token"].(string)
		_, token = e.SessionTOTP(org, mid, token, nil)
		path := memberPath(org, mid)
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"default_mfa_method": "totp"}), 200, "")
		wantFields(t, e.MemberByID(org, mid), map[string]any{"default_mfa_method": "totp"})
		// An organization that no longer allows SMS cannot be steered to it.
		e.SetMFA(org, "REQUIRED_FOR_ALL", "totp")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"default_mfa_method": "sms_otp"}), 403, "operation_restricted_by_organization_mfa_methods")
		apptest.Want(t, e.Backend(http.MethodPut, memberPath(org, other), map[string]any{"mfa_phone_number": "+12025550100"}), 403,
			"operation_restricted_by_organization_mfa_methods")
	})
}

// A member's external_id is unique within its organization and free
// across organizations; "" and the delete route clear it, which frees it
// for another member. It has the API family's form.
func TestMemberExternalIDIsUniquePerOrganization(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme, beta := e.CreateOrg("acme", "ALL_ALLOWED", nil), e.CreateOrg("beta", "ALL_ALLOWED", nil)
		ada, bob, cy := e.CreateMember(acme, "ada@acme.test"), e.CreateMember(acme, "bob@acme.test"), e.CreateMember(beta, "cy@beta.test")
		set := func(org, id, ext string) apptest.Resp {
			return e.Backend(http.MethodPut, memberPath(org, id), map[string]any{"external_id": ext})
		}
		apptest.Want(t, set(acme, ada, "ext-1"), 200, "")
		apptest.Want(t, set(acme, bob, "ext-1"), 400, "duplicate_member_external_id")
		apptest.Want(t, set(beta, cy, "ext-1"), 200, "")
		apptest.Want(t, set(acme, ada, "ext-1"), 200, "") // its own id again is no conflict
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+acme+"/members", map[string]any{"email_address": "dan@acme.test",
			"external_id": "ext-1"})
		apptest.Want(t, r, 400, "duplicate_member_external_id")
		// The refused create left no member behind.
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+acme+"/member?email_address=dan@acme.test", nil), 404, "member_not_found")
		for _, bad := range []string{"has space", "ümlaut", "semi;colon", strings.Repeat("x", 129)} {
			apptest.Want(t, set(acme, bob, bad), 400, "invalid_request")
		}

		// DELETE .../members/{member_id}/external_id (api-reference 5.4).
		r = e.Backend(http.MethodDelete, memberPath(acme, ada)+"/external_id", nil)
		apptest.Want(t, r, 200, "")
		if r.Body["member_id"] != ada || r.Body["member"].(map[string]any)["external_id"] != "" || r.Body["organization"] == nil {
			t.Fatalf("delete external_id: %s", r.Raw)
		}
		apptest.Want(t, set(acme, bob, "ext-1"), 200, "")
		apptest.Want(t, set(acme, bob, ""), 200, "")
		wantFields(t, e.MemberByID(acme, bob), map[string]any{"external_id": ""})
		apptest.Want(t, set(acme, ada, "ext-1"), 200, "")
		// Another organization's member is not found through this one.
		apptest.Want(t, e.Backend(http.MethodDelete, memberPath(acme, cy)+"/external_id", nil), 404, "member_not_found")
		wantFields(t, e.MemberByID(beta, cy), map[string]any{"external_id": "ext-1"})
	})
}

// Member create takes mfa_enrolled and mfa_phone_number on both faces and
// external_id on the backend's; the SDK face answers the number masked.
// A refused field refuses the create whole.
func TestMemberCreateTakesDeclaredFields(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		path := "/v1/b2b/organizations/" + org + "/members"
		r := e.Backend(http.MethodPost, path, map[string]any{"email_address": "new@acme.test",
			"mfa_enrolled": true, "mfa_phone_number": "+12025550124", "external_id": "ext-member-2"})
		apptest.Want(t, r, 200, "")
		want := map[string]any{"mfa_enrolled": true, "mfa_phone_number": "+12025550124", "mfa_phone_number_verified": false,
			"external_id": "ext-member-2", "status": "active"}
		wantFields(t, r.Body["member"].(map[string]any), want)
		wantFields(t, e.MemberByID(org, r.Body["member_id"].(string)), want)

		e.CreateAdmin(org, "boss@acme.test")
		admin := e.SessionFor(org, "boss@acme.test")
		r = e.SDK(http.MethodPost, "/b2b/organizations/members", map[string]any{"email_address": "sdk@acme.test",
			"mfa_enrolled": true, "mfa_phone_number": "+12025550125"}, admin)
		apptest.Want(t, r, 200, "")
		wantFields(t, r.Data()["member"].(map[string]any), map[string]any{"mfa_enrolled": true, "mfa_phone_number": "+*******0125"})
		wantFields(t, e.MemberByID(org, r.Data()["member_id"].(string)), map[string]any{"mfa_phone_number": "+12025550125"})

		for name, r := range map[string]apptest.Resp{
			"duplicate phone": e.Backend(http.MethodPost, path, map[string]any{"email_address": "dup@acme.test", "mfa_phone_number": "+12025550124"}),
			"invalid phone":   e.Backend(http.MethodPost, path, map[string]any{"email_address": "bad@acme.test", "mfa_phone_number": "555"}),
			"sdk external_id": e.SDK(http.MethodPost, "/b2b/organizations/members", map[string]any{"email_address": "ext@acme.test",
				"external_id": "mine"}, admin),
		} {
			if r.Status < 400 {
				t.Fatalf("%s: answered %d %s", name, r.Status, r.Raw)
			}
		}
		apptest.Want(t, e.Backend(http.MethodPost, path, map[string]any{"email_address": "dup@acme.test", "mfa_phone_number": "+12025550124"}),
			400, "duplicate_member_phone_number")
		for _, email := range []string{"dup@acme.test", "bad@acme.test", "ext@acme.test"} {
			apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?email_address="+email, nil), 404, "member_not_found")
		}
		// A duplicate address is still duplicate_member_email with the new fields.
		apptest.Want(t, e.Backend(http.MethodPost, path, map[string]any{"email_address": "new@acme.test", "mfa_enrolled": true}), 400,
			"duplicate_member_email")
	})
}
