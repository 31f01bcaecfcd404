package mfa_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/emailotp"
	"github.com/latchkey/latchkey/internal/mfa"
	"github.com/latchkey/latchkey/internal/organization"
)

// SMS enrollment during a required-MFA login: numbers are validated to
// E.164, codes land in the dev mailbox, expire after 2 minutes, lock after
// repeated misses and are single use; the verified number becomes the
// member's, unique within the organization.
func TestSMSEnrollmentCodesAndLockout(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid := e.MFAMember()
		ist, _ := e.MFALogin(org, "ada@secure.test")

		apptest.Want(t, e.SMSSend(org, mid, ist, "4155552671"), 400, "invalid_phone_number")
		apptest.Want(t, e.SMSSend(org, mid, ist, "+1 415 555"), 400, "invalid_phone_number")
		apptest.Want(t, e.SMSSend(org, mid, ist, "+999 1234567"), 400, "invalid_phone_number_country_code")
		apptest.Want(t, e.SMSSend(org, mid, ist, ""), 400, "invalid_request") // nothing enrolled, no number given
		apptest.Want(t, e.SMSSend(org, mid, "", "+14155552671"), 401, "user_unauthenticated")

		const num = "+14155552671"
		if r := e.SMSSend(org, mid, ist, "+1 (415) 555-2671"); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		code := e.LastSMS(num)

		// Expiry: 2 minutes.
		e.Clock.Advance(mfa.SMSCodeExpiry)
		apptest.Want(t, e.SMSAuth(org, mid, ist, code, nil), 404, "otp_code_not_found")

		// Lockout: the code dies after emailotp.MaxAttempts misses.
		e.SMSSend(org, mid, ist, num)
		code = e.LastSMS(num)
		for range emailotp.MaxAttempts {
			apptest.Want(t, e.SMSAuth(org, mid, ist, apptest.WrongCode(code), nil), 404, "otp_code_not_found")
		}
		apptest.Want(t, e.SMSAuth(org, mid, ist, code, nil), 404, "otp_code_not_found")
		apptest.Want(t, e.SMSAuth(org, mid, ist, "12a456", nil), 400, "invalid_code")

		// A resend supersedes the previous code.
		e.SMSSend(org, mid, ist, num)
		old := e.LastSMS(num)
		e.Clock.Advance(time.Second)
		e.SMSSend(org, mid, ist, num)
		code = e.LastSMS(num)
		if old != code {
			apptest.Want(t, e.SMSAuth(org, mid, ist, old, nil), 404, "otp_code_not_found")
		}
		r := e.SMSAuth(org, mid, ist, code, map[string]any{"set_mfa_enrollment": "enroll"})
		if r.Status != 200 {
			t.Fatalf("sms authenticate: %s", r.Raw)
		}
		apptest.WantFactors(t, r.Data(), "email_otp/email/PRIMARY", "otp/sms/SECONDARY")
		f := r.Data()["member_session"].(map[string]any)["authentication_factors"].([]any)[1].(map[string]any)
		// Browsers see phone numbers masked (the backend face has them whole).
		if pf, _ := f["phone_number_factor"].(map[string]any); pf["phone_number"] != organization.MaskPhone(num) || pf["phone_id"] == "" {
			t.Fatalf("sms factor = %v", f)
		}
		m := apptest.MemberOf(r.Data())
		if m["mfa_phone_number"] != organization.MaskPhone(num) || e.MemberByID(org, mid)["mfa_phone_number"] != num ||
			m["mfa_phone_number_verified"] != true || m["default_mfa_method"] != "sms_otp" ||
			m["mfa_enrolled"] != false { // REQUIRED_FOR_ALL ignores set_mfa_enrollment
			t.Fatalf("member after sms enrollment: %v", m)
		}
		apptest.Want(t, e.SMSAuth(org, mid, ist, code, nil), 404, "intermediate_session_not_found") // the IST is spent

		// One member per number in an organization; other organizations
		// are separate.
		bob := e.CreateMember(org, "bob@secure.test")
		bist, _ := e.MFALogin(org, "bob@secure.test")
		apptest.Want(t, e.SMSSend(org, bob, bist, "+1 415-555-2671"), 400, "duplicate_member_phone_number")
		other := e.CreateOrg("other", "NOT_ALLOWED", nil)
		e.SetMFA(other, "REQUIRED_FOR_ALL")
		ada2 := e.CreateMember(other, "ada@secure.test")
		ist2, _ := e.MFALogin(other, "ada@secure.test")
		if r := e.SMSSend(other, ada2, ist2, num); r.Status != 200 {
			t.Fatalf("same number in another organization: %s", r.Raw)
		}

		// An IST is for this member only.
		apptest.Want(t, e.SMSSend(org, mid, bist, ""), 403, "unauthorized_action")

		// With only an IST, a member who has MFA cannot enroll more. (A
		// new window first: the sends above used up the number's
		// enrolment limit, which the last send below needs.)
		e.Clock.Advance(mfa.SMSEnrollPerPhone.Window)
		ist, req := e.MFALogin(org, "ada@secure.test")
		if req["secondary_auth_initiated"] != "sms_otp" || req["member_options"].(map[string]any)["mfa_phone_number"] != organization.MaskPhone(num) {
			t.Fatalf("default sms: mfa_required = %v", req)
		}
		apptest.Want(t, e.SMSSend(org, mid, ist, "+14155550123"), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": mid, "intermediate_session_token": ist}, ""),
			403, "unauthorized_action")
		// The login already sent a code; using it completes the login.
		r = e.SMSAuth(org, mid, ist, e.LastSMS(num), nil)
		if r.Status != 200 {
			t.Fatalf("server-initiated sms: %s", r.Raw)
		}
		apptest.WantFactors(t, r.Data(), "email_otp/email/PRIMARY", "otp/sms/SECONDARY")

		// Phone deletion: self route, then the backend route.
		self := r.Data()["session_token"].(string)
		r = e.SDK(http.MethodDelete, "/b2b/organizations/members/deletePhoneNumber", nil, self)
		if m := apptest.MemberOf(r.Data()); r.Status != 200 || m["mfa_phone_number"] != "" || m["mfa_phone_number_verified"] != false ||
			m["default_mfa_method"] != "" {
			t.Fatalf("self delete phone: %s", r.Raw)
		}
		r = e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+other+"/members/mfa_phone_numbers/"+ada2, nil)
		if r.Status != 200 || r.Body["member"].(map[string]any)["mfa_phone_number"] != "" {
			t.Fatalf("backend delete phone: %s", r.Raw)
		}
		// The number is free again in the organization.
		bist, _ = e.MFALogin(org, "bob@secure.test")
		if r := e.SMSSend(org, bob, bist, num); r.Status != 200 {
			t.Fatalf("freed number: %s", r.Raw)
		}
	})
}

// Sends are limited per member and per number, so neither a client nor
// a guesser can flood a phone.
func TestSMSSendLimits(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid := e.MFAMember()
		ist, _ := e.MFALogin(org, "ada@secure.test")
		for i := 0; i < mfa.SMSSendPerMember.Limit; i++ {
			if r := e.SMSSend(org, mid, ist, "+14155552671"); r.Status != 200 {
				t.Fatalf("send %d: %s", i, r.Raw)
			}
		}
		apptest.Want(t, e.SMSSend(org, mid, ist, "+14155552671"), 429, "too_many_requests")
		if n := smsCount(e, "+14155552671"); n != mfa.SMSSendPerMember.Limit {
			t.Fatalf("%d messages sent, want %d", n, mfa.SMSSendPerMember.Limit)
		}

		// Per number: other members sending to one number (each may try to
		// enroll it until one verifies it) share its enrolment limit.
		e.Clock.Advance(mfa.SMSSendPerMember.Window)
		var last apptest.Resp
		for i := 0; i <= mfa.SMSEnrollPerPhone.Limit; i++ {
			email := string(rune('a'+i)) + "@secure.test"
			m := e.CreateMember(org, email)
			ist, _ := e.MFALogin(org, email)
			last = e.SMSSend(org, m, ist, "+14155550123")
		}
		apptest.Want(t, last, 429, "too_many_requests")
	})
}

// SMS code checks are limited per member beyond each code's own
// MaxAttempts: a guesser who spends code after code (or guesses with no
// live code at all) is refused once SMSCheckPerMember checks are used in a
// window, even with the right code of a fresh send, until the window ends.
func TestSMSChecksLimitedPerMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid := e.MFAMember()
		ist, _ := e.MFALogin(org, "ada@secure.test")
		const num = "+14155552671"
		if r := e.SMSSend(org, mid, ist, num); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		code := e.LastSMS(num)
		for range mfa.SMSCheckPerMember.Limit {
			apptest.Want(t, e.SMSAuth(org, mid, ist, apptest.WrongCode(code), nil), 404, "otp_code_not_found")
		}
		if r := e.SMSSend(org, mid, ist, num); r.Status != 200 {
			t.Fatalf("second send: %s", r.Raw)
		}
		apptest.Want(t, e.SMSAuth(org, mid, ist, e.LastSMS(num), nil), 429, "too_many_requests")

		// A new window (and a new login, the IST has expired meanwhile), a
		// new code: the member is not locked for good.
		e.Clock.Advance(mfa.SMSCheckPerMember.Window)
		ist, _ = e.MFALogin(org, "ada@secure.test")
		if r := e.SMSSend(org, mid, ist, num); r.Status != 200 {
			t.Fatalf("send in a new window: %s", r.Raw)
		}
		if r := e.SMSAuth(org, mid, ist, e.LastSMS(num), nil); r.Status != 200 {
			t.Fatalf("right code in a new window: %s", r.Raw)
		}
	})
}

// Per number and hour: once a ten-minute window has passed, a number may
// receive enrolment codes again, but never more than
// SMSEnrollPerPhoneHour.Limit in an hour, however many members ask for it.
func TestSMSSendLimitPerNumberPerHour(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, _ := e.MFAMember()
		const phone = "+14155550123"
		n := 0
		send := func() apptest.Resp {
			t.Helper()
			n++
			email := fmt.Sprintf("m%d@secure.test", n)
			m := e.CreateMember(org, email)
			ist, _ := e.MFALogin(org, email)
			return e.SMSSend(org, m, ist, phone)
		}
		for sent := range mfa.SMSEnrollPerPhoneHour.Limit {
			if sent > 0 && sent%mfa.SMSEnrollPerPhone.Limit == 0 {
				e.Clock.Advance(mfa.SMSEnrollPerPhone.Window)
			}
			if r := send(); r.Status != 200 {
				t.Fatalf("send %d: %s", sent, r.Raw)
			}
		}
		e.Clock.Advance(mfa.SMSEnrollPerPhone.Window)
		apptest.Want(t, send(), 429, "too_many_requests")
		if got := smsCount(e, phone); got != mfa.SMSEnrollPerPhoneHour.Limit {
			t.Fatalf("%d codes sent to the number, want %d", got, mfa.SMSEnrollPerPhoneHour.Limit)
		}
	})
}

// Per member: a member trying number after number still gets at most
// SMSSendPerMember.Limit codes in the window, although no number's own
// limit is reached.
func TestSMSSendLimitPerMemberAcrossNumbers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid := e.MFAMember()
		ist, _ := e.MFALogin(org, "ada@secure.test")
		for i := range mfa.SMSSendPerMember.Limit {
			if r := e.SMSSend(org, mid, ist, fmt.Sprintf("+1415555%04d", 100+i)); r.Status != 200 {
				t.Fatalf("send %d: %s", i, r.Raw)
			}
		}
		apptest.Want(t, e.SMSSend(org, mid, ist, "+14155550199"), 429, "too_many_requests")
	})
}

// Per member and number: a member enrolling one number gets at most
// SMSEnrollPerMemberPhone.Limit codes to it in the hour, though the
// member's own ten-minute window and the number's have passed; another
// number is still open to them.
func TestSMSEnrollmentSendsPerMemberAndNumber(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid := e.MFAMember()
		const num = "+14155550123"
		ist, _ := e.MFALogin(org, "ada@secure.test")
		for i := range mfa.SMSEnrollPerMemberPhone.Limit {
			if r := e.SMSSend(org, mid, ist, num); r.Status != 200 {
				t.Fatalf("send %d: %s", i, r.Raw)
			}
		}
		e.Clock.Advance(mfa.SMSSendPerMember.Window)
		ist, _ = e.MFALogin(org, "ada@secure.test")
		apptest.Want(t, e.SMSSend(org, mid, ist, num), 429, "too_many_requests")
		apptest.Want(t, e.SMSSend(org, mid, ist, "+14155550124"), 200, "")
	})
}

// The code a login sends by itself to an enrolled number obeys the same
// hourly limit per number: past it the member still stops at
// mfa_required, but no code goes out and the answer does not claim one.
// (The enrolling send was counted as an enrolment, not in this budget.)
func TestAutoSentSMSLimitedPerNumberPerHour(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, num := smsEnrolled(t, e)
		// Ten-minute windows keep the per-member, per-number and email
		// send limits apart from the hourly one (the enrolling send is
		// the member's first in the first window).
		for sent := 1; sent <= mfa.SMSSendPerPhoneHour.Limit; sent++ {
			if sent%mfa.SMSSendPerPhone.Limit == 0 {
				e.Clock.Advance(mfa.SMSSendPerPhone.Window)
			}
			if _, req := e.MFALogin(org, "ada@secure.test"); req["secondary_auth_initiated"] != "sms_otp" {
				t.Fatalf("login %d sent no code: %v", sent, req)
			}
		}
		e.Clock.Advance(mfa.SMSSendPerPhone.Window)
		if _, req := e.MFALogin(org, "ada@secure.test"); req["secondary_auth_initiated"] != nil {
			t.Fatalf("a code past the hourly limit: %v", req)
		}
		if got := smsCount(e, num); got != 1+mfa.SMSSendPerPhoneHour.Limit {
			t.Fatalf("%d codes sent to the number, want the enrolling one and %d", got, mfa.SMSSendPerPhoneHour.Limit)
		}
	})
}

// The code a login sends by itself counts against the client's address
// as an asked-for send does (SMSSendPerIP): one address holding many
// members' first factors cannot send texts past the address's limit.
func TestAutoSentSMSCountsAgainstTheAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, _ := smsEnrolled(t, e)
		addressSends := func() int {
			return e.Count(`SELECT COALESCE(SUM(hits), 0) FROM rate_limits WHERE bucket LIKE $1`, mfa.SMSSendPerIP.Name+":%")
		}
		if n := addressSends(); n != 1 {
			t.Fatalf("%d sends counted for the address after the enrolling send, want 1", n)
		}
		for i := 2; i <= 3; i++ {
			if _, req := e.MFALogin(org, "ada@secure.test"); req["secondary_auth_initiated"] != "sms_otp" {
				t.Fatalf("login sent no code: %v", req)
			}
			if n := addressSends(); n != i {
				t.Fatalf("%d sends counted for the address after %d logins' codes, want %d", n, i-1, i)
			}
		}
	})
}

// smsEnrolled is MFAMember ada@secure.test enrolled in SMS codes at a
// number, by one code sent and checked (ada's default MFA method since).
func smsEnrolled(t *testing.T, e *apptest.Env) (org, num string) {
	t.Helper()
	org, _, num = smsEnrolledMember(t, e)
	return org, num
}

// smsEnrolledMember is smsEnrolled with the member's id.
func smsEnrolledMember(t *testing.T, e *apptest.Env) (org, mid, num string) {
	t.Helper()
	org, mid = e.MFAMember()
	num = "+14155552671"
	ist, _ := e.MFALogin(org, "ada@secure.test")
	if r := e.SMSSend(org, mid, ist, num); r.Status != 200 {
		t.Fatalf("enrolling send: %s", r.Raw)
	}
	if r := e.SMSAuth(org, mid, ist, e.LastSMS(num), nil); r.Status != 200 {
		t.Fatalf("enrolling check: %s", r.Raw)
	}
	return org, mid, num
}

// Sending to a number the sender has not verified is an enrolment, counted
// in its own buckets (per member and number, and per number): a stranger
// typing someone's verified number into her own organization's enrolment
// is limited there, and never spends the holder's budget, who still gets
// every code of theirs.
func TestEnrollmentSendsLeaveTheHolderBudget(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid, num := smsEnrolledMember(t, e)
		e.Clock.Advance(mfa.SMSSendPerPhone.Window) // past the enrolling send's window

		// The stranger's own organization and fresh sessions there.
		own := e.CreateOrg("strangers-own", "NOT_ALLOWED", nil)
		send := func(email string) apptest.Resp {
			t.Helper()
			sender := e.CreateMember(own, email)
			token := e.SessionFor(own, email)
			var r apptest.Resp
			for range mfa.SMSSendPerPhone.Limit + 1 {
				r = e.SDK(http.MethodPost, "/b2b/otps/sms/send", map[string]any{"organization_id": own, "member_id": sender,
					"mfa_phone_number": num}, token)
				if r.Status != 200 {
					break
				}
			}
			return r
		}
		before := smsCount(e, num)
		apptest.Want(t, send("eve@strangers.test"), 429, "too_many_requests")
		// A second member of hers finds the number's enrolment budget spent.
		apptest.Want(t, send("mallory@strangers.test"), 429, "too_many_requests")
		if n := smsCount(e, num) - before; n != mfa.SMSEnrollPerPhone.Limit {
			t.Fatalf("the stranger's members sent %d texts, want %d", n, mfa.SMSEnrollPerPhone.Limit)
		}

		// The holder still gets the login's code, and another when asked.
		sent := smsCount(e, num)
		ist, req := e.MFALogin(org, "ada@secure.test")
		if req["secondary_auth_initiated"] != "sms_otp" {
			t.Fatalf("the holder's login sent no code: %v", req)
		}
		if r := e.SMSSend(org, mid, ist, ""); r.Status != 200 {
			t.Fatalf("the holder's resend: %s", r.Raw)
		}
		if got := smsCount(e, num) - sent; got != 2 {
			t.Fatalf("%d codes reached the holder, want 2", got)
		}
		if r := e.SMSAuth(org, mid, ist, e.LastSMS(num), nil); r.Status != 200 {
			t.Fatalf("the holder's code: %s", r.Raw)
		}
	})
}

// Premium-rate and shared-cost numbers (SMS pumping) are refused as
// invalid_phone_number wherever a number is taken for MFA: an enrolment
// send, a member update; and a number enrolled before the rule is not
// texted either, by a login or when asked.
func TestPremiumRateNumbersGetNoCodes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid := e.MFAMember()
		ist, _ := e.MFALogin(org, "ada@secure.test")
		for _, n := range []string{"+19002123456", "+449018123456", "+33891123456"} {
			r := e.SMSSend(org, mid, ist, n)
			apptest.Want(t, r, 400, "invalid_phone_number")
			if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, "Premium-rate") {
				t.Fatalf("the refusal does not say why: %s", r.Raw)
			}
			if c := smsCount(e, n); c != 0 {
				t.Fatalf("%d texts to %s", c, n)
			}
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+mid,
				map[string]any{"mfa_phone_number": n}), 400, "invalid_phone_number")
		}
		apptest.Want(t, e.SMSSend(org, mid, ist, "+447911123456"), 200, "") // a mobile number

		// A premium-rate number stored as verified before the rule.
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE members SET mfa_phone_number = $1, mfa_phone_number_verified = $2,
			default_mfa_method = 'sms_otp' WHERE member_id = $3`, "+19002123456", true, mid); err != nil {
			t.Fatal(err)
		}
		ist, req := e.MFALogin(org, "ada@secure.test")
		if req["secondary_auth_initiated"] != nil {
			t.Fatalf("a login texted a premium-rate number: %v", req)
		}
		apptest.Want(t, e.SMSSend(org, mid, ist, ""), 400, "invalid_phone_number")
		if c := smsCount(e, "+19002123456"); c != 0 {
			t.Fatalf("%d texts to the stored premium-rate number", c)
		}
	})
}
