package oauth_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/mfa"
)

// The squatter of the pre-account takeover (squatterLogin) enrols MFA
// while holding the CFO's member in an organization that requires it: an
// authenticator app from the login in progress, then a phone number,
// made the default method, from the session. When the CFO proves the
// address by email code, those factors go with the squatter's GitHub
// registration, in the same transaction: the CFO's login is asked to
// enrol a factor of her own (mfa_required without member_options), not
// for the squatter's app, and no code is texted to the squatter's phone.
// Each removal is in the audit log. Before the fix the CFO's login asked
// for the squatter's authenticator app.
func TestOwnersProofRemovesTheSquattersMFAFactors(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		useGitHub(t, e, "cfo@acme.test", false)
		org := tenantOrg(e)
		e.SetMFA(org, "REQUIRED_FOR_ALL")
		r := gitHubLogin(t, e, org)
		apptest.Want(t, r, 200, "")
		ist, _ := r.Data()["intermediate_session_token"].(string)
		mid, _ := r.Data()["member_id"].(string)
		if ist == "" {
			t.Fatalf("no IST: %s", r.Raw)
		}
		r = e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": mid, "intermediate_session_token": ist}, "")
		apptest.Want(t, r, 200, "")
		secret := r.Data()["secret"].(string)
		r = e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "code": apptest.TOTPAt(t, secret, e.Clock.Now())}, "")
		apptest.Want(t, r, 200, "")
		const phone = "+15005550006"
		e.SessionSMS(org, mid, r.Data()["session_token"].(string), phone, map[string]any{"set_default_mfa": true})
		m := e.MemberByID(org, mid)
		if m["totp_registration_id"] == "" || m["mfa_phone_number"] != phone || m["default_mfa_method"] != "sms_otp" {
			t.Fatalf("the squatter's factors: %v", m)
		}
		texts := textsTo(t, e, phone)

		d := e.EmailLogin(org, "cfo@acme.test")
		if d["member_id"] != mid {
			t.Fatalf("the CFO's login: %v", d)
		}
		req, _ := d["mfa_required"].(map[string]any)
		if req == nil || req["member_options"] != nil || req["secondary_auth_initiated"] != nil || d["session_token"] != "" {
			t.Fatalf("the CFO's login must ask her to enrol: %v", d)
		}
		if got := apptest.MemberOf(d); got["totp_registration_id"] != "" || got["mfa_phone_number"] != "" || got["default_mfa_method"] != "" {
			t.Fatalf("the CFO's login answers the squatter's factors: %v", got)
		}
		if n := textsTo(t, e, phone); n != texts {
			t.Fatalf("the CFO's login texted the squatter's phone (%d messages, was %d)", n, texts)
		}
		m = e.MemberByID(org, mid)
		if m["totp_registration_id"] != "" || m["mfa_phone_number"] != "" || m["mfa_phone_number_verified"] != false ||
			m["email_address_verified"] != true {
			t.Fatalf("member after the proof: %v", m)
		}
		var codes int
		if err := e.App.DB.Read().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM recovery_codes WHERE member_id = $1`, mid).Scan(&codes); err != nil || codes != 0 {
			t.Fatalf("recovery codes left: %d %v", codes, err)
		}
		events, err := e.App.Audit.List(t.Context(), audit.Filter{ProjectID: e.Project.Project.ID, Type: audit.FactorChange})
		if err != nil {
			t.Fatal(err)
		}
		var methods []string
		for _, ev := range events {
			if ev.Details["reason"] == "email_verified_without_provider" && ev.MemberID == mid {
				methods = append(methods, ev.Method)
			}
		}
		slices.Sort(methods)
		if want := []string{"oauth_registration_removed", mfa.PhoneDeleted, mfa.TOTPDeleted}; !slices.Equal(methods, want) {
			t.Fatalf("audit: %v, want %v", methods, want)
		}

		// The CFO enrols her own app and logs in with it.
		ist, _ = d["intermediate_session_token"].(string)
		r = e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": mid, "intermediate_session_token": ist}, "")
		apptest.Want(t, r, 200, "")
		r = e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "code": apptest.TOTPAt(t, r.Data()["secret"].(string), e.Clock.Now())}, "")
		apptest.Want(t, r, 200, "")
	})
}

// textsTo counts the text messages to a number.
func textsTo(t *testing.T, e *apptest.Env, to string) int {
	t.Helper()
	msgs, err := e.App.Outbox.List(context.Background(), to, 200)
	if err != nil {
		t.Fatal(err)
	}
	return len(msgs)
}
