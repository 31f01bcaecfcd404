package app_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/organization"
)

// sessionTOTP enrolls an authenticator app with a session and returns the
// secret and the stepped-up session token.
func (e *env) sessionTOTP(org, mid, token string, extra map[string]any) (string, string) {
	e.t.Helper()
	r := e.sdk("/b2b/totp", map[string]any{"organization_id": org, "member_id": mid}, token)
	if r.Status != 200 {
		e.t.Fatalf("totp create: %s", r.Raw)
	}
	secret := r.data()["secret"].(string)
	body := map[string]any{"organization_id": org, "member_id": mid, "code": totpAt(e.t, secret, e.clock.Now())}
	for k, v := range extra {
		body[k] = v
	}
	if r = e.sdk("/b2b/totp/authenticate", body, token); r.Status != 200 {
		e.t.Fatalf("totp authenticate: %s", r.Raw)
	}
	return secret, r.data()["session_token"].(string)
}

// sessionSMS enrolls a phone number with a session and returns the
// stepped-up session token.
func (e *env) sessionSMS(org, mid, token, phone string, extra map[string]any) string {
	e.t.Helper()
	if r := e.sdk("/b2b/otps/sms/send", map[string]any{"organization_id": org, "member_id": mid, "mfa_phone_number": phone}, token); r.Status != 200 {
		e.t.Fatalf("sms send: %s", r.Raw)
	}
	body := map[string]any{"organization_id": org, "member_id": mid, "code": e.lastSMS(phone)}
	for k, v := range extra {
		body[k] = v
	}
	r := e.sdk("/b2b/otps/sms/authenticate", body, token)
	if r.Status != 200 {
		e.t.Fatalf("sms authenticate: %s", r.Raw)
	}
	return r.data()["session_token"].(string)
}

// The MFA policy matrix: the organization's policy (optional or required
// for all), its allowed methods, the member's enrollment and default
// method decide whether a login stops at mfa_required, what
// member_options says, and whether the server starts an SMS.
func TestMFAPolicyMatrix(t *testing.T) {
	type outcome struct {
		mfa       bool   // mfa_required instead of a session
		options   string // "" (null), "totp", "sms", "both"
		initiated bool   // secondary_auth_initiated == "sms_otp" and a code was sent
	}
	cases := []struct {
		name    string
		setup   func(e *env, org, mid, token string) // runs on an OPTIONAL organization with a logged-in member
		policy  string
		methods []string
		want    outcome
	}{
		{name: "optional, nothing enrolled", policy: "OPTIONAL", want: outcome{}},
		{name: "optional, app registered but not opted in", policy: "OPTIONAL",
			setup: func(e *env, org, mid, tok string) { e.sessionTOTP(org, mid, tok, nil) }, want: outcome{}},
		{name: "optional, opted in with an app", policy: "OPTIONAL",
			setup: func(e *env, org, mid, tok string) {
				e.sessionTOTP(org, mid, tok, map[string]any{"set_mfa_enrollment": "enroll"})
			}, want: outcome{mfa: true, options: "totp"}},
		{name: "optional, opted in then out", policy: "OPTIONAL",
			setup: func(e *env, org, mid, tok string) {
				_, tok = e.sessionTOTP(org, mid, tok, map[string]any{"set_mfa_enrollment": "enroll"})
				e.sessionSMS(org, mid, tok, "+14155550100", map[string]any{"set_mfa_enrollment": "unenroll"})
			}, want: outcome{}},
		{name: "required, nothing enrolled", policy: "REQUIRED_FOR_ALL", want: outcome{mfa: true}},
		{name: "required, app", policy: "REQUIRED_FOR_ALL",
			setup: func(e *env, org, mid, tok string) { e.sessionTOTP(org, mid, tok, nil) }, want: outcome{mfa: true, options: "totp"}},
		{name: "required, sms is the default", policy: "REQUIRED_FOR_ALL",
			setup: func(e *env, org, mid, tok string) { e.sessionSMS(org, mid, tok, "+14155550101", nil) },
			want:  outcome{mfa: true, options: "sms", initiated: true}},
		{name: "required, both, app enrolled first is the default", policy: "REQUIRED_FOR_ALL",
			setup: func(e *env, org, mid, tok string) {
				_, tok = e.sessionTOTP(org, mid, tok, nil)
				e.sessionSMS(org, mid, tok, "+14155550102", nil)
			}, want: outcome{mfa: true, options: "both"}},
		{name: "required, both, sms made the default", policy: "REQUIRED_FOR_ALL",
			setup: func(e *env, org, mid, tok string) {
				_, tok = e.sessionTOTP(org, mid, tok, nil)
				e.sessionSMS(org, mid, tok, "+14155550103", map[string]any{"set_default_mfa": true})
			}, want: outcome{mfa: true, options: "both", initiated: true}},
		{name: "required, sms default but only apps allowed", policy: "REQUIRED_FOR_ALL", methods: []string{"totp"},
			setup: func(e *env, org, mid, tok string) {
				_, tok = e.sessionTOTP(org, mid, tok, nil)
				e.sessionSMS(org, mid, tok, "+14155550104", map[string]any{"set_default_mfa": true})
			}, want: outcome{mfa: true, options: "both"}},
		{name: "required, app made the default again", policy: "REQUIRED_FOR_ALL",
			setup: func(e *env, org, mid, tok string) {
				tok = e.sessionSMS(org, mid, tok, "+14155550105", nil)
				e.sessionTOTP(org, mid, tok, map[string]any{"set_default_mfa": true})
			}, want: outcome{mfa: true, options: "both"}},
	}
	eachEnv(t, func(t *testing.T, e *env) {
		e.alignClock()
		for i, tc := range cases {
			org := e.createOrg(fmt.Sprintf("org%02d", i), "NOT_ALLOWED")
			email := fmt.Sprintf("m%02d@matrix.test", i)
			mid := e.createMember(org, email)
			if tc.setup != nil {
				tok := e.emailLogin(org, email)["session_token"].(string)
				tc.setup(e, org, mid, tok)
			}
			e.setMFA(org, tc.policy, tc.methods...)
			d := e.emailLogin(org, email)
			req, _ := d["mfa_required"].(map[string]any)
			if got := req != nil; got != tc.want.mfa || (d["member_session"] != nil) == tc.want.mfa {
				t.Fatalf("%s: mfa_required = %v, session = %v", tc.name, req, d["member_session"] != nil)
			}
			if !tc.want.mfa {
				wantFactors(t, d, "otp/email/PRIMARY")
				continue
			}
			opts, _ := req["member_options"].(map[string]any)
			got := ""
			switch {
			case opts == nil:
			case opts["mfa_phone_number"] != "" && opts["totp_registration_id"] != "":
				got = "both"
			case opts["mfa_phone_number"] != "":
				got = "sms"
			case opts["totp_registration_id"] != "":
				got = "totp"
			default:
				got = "empty object"
			}
			if got != tc.want.options {
				t.Errorf("%s: member_options = %v, want %s", tc.name, opts, tc.want.options)
			}
			if initiated := req["secondary_auth_initiated"] == "sms_otp"; initiated != tc.want.initiated {
				t.Errorf("%s: secondary_auth_initiated = %v", tc.name, req["secondary_auth_initiated"])
			}
			if tc.want.initiated {
				// The code was sent inside the login and completes it.
				ist := d["intermediate_session_token"].(string)
				// The browser sees the number masked; the backend has it whole.
				num := e.member(org, mid)["mfa_phone_number"].(string)
				if opts["mfa_phone_number"] != organization.MaskPhone(num) || opts["mfa_phone_number"] == num {
					t.Fatalf("%s: member_options.mfa_phone_number = %v for %s", tc.name, opts["mfa_phone_number"], num)
				}
				r := e.smsAuth(org, mid, ist, e.lastSMS(num), nil)
				if r.Status != 200 {
					t.Fatalf("%s: server-initiated code: %s", tc.name, r.Raw)
				}
				wantFactors(t, r.data(), "otp/email/PRIMARY", "otp/sms/SECONDARY")
			}
		}
	})
}

// Restricted MFA methods are enforced by every MFA endpoint, not only by
// what the widget offers.
func TestMFARestrictedMethods(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		e.alignClock()
		org := e.createOrg("smsonly", "NOT_ALLOWED")
		mid := e.createMember(org, "ada@smsonly.test")
		tok := e.emailLogin(org, "ada@smsonly.test")["session_token"].(string)
		secret, tok := e.sessionTOTP(org, mid, tok, nil)
		e.setMFA(org, "REQUIRED_FOR_ALL", "sms_otp")
		ist, req := e.mfaLogin(org, "ada@smsonly.test")
		if req["member_options"].(map[string]any)["totp_registration_id"] == "" {
			t.Fatalf("member_options = %v", req)
		}
		want(t, e.sdk("/b2b/totp", map[string]any{"organization_id": org, "member_id": mid, "intermediate_session_token": ist}, ""),
			403, "mfa_method_not_allowed")
		e.clock.Advance(30 * time.Second)
		want(t, e.sdk("/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "code": totpAt(t, secret, e.clock.Now())}, ""), 403, "mfa_method_not_allowed")
		// SMS is allowed; the member has an app, so with only the IST they
		// cannot add a phone: the organization's admin must remove the app
		// first (or the member from a session).
		want(t, e.smsSend(org, mid, ist, "+14155550110"), 403, "unauthorized_action")
		if r := e.backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+mid+"/totp", nil); r.Status != 200 {
			t.Fatalf("delete totp: %s", r.Raw)
		}
		if r := e.smsSend(org, mid, ist, "+14155550110"); r.Status != 200 {
			t.Fatalf("sms enrollment: %s", r.Raw)
		}
		if r := e.smsAuth(org, mid, ist, e.lastSMS("+14155550110"), nil); r.Status != 200 {
			t.Fatalf("sms authenticate: %s", r.Raw)
		}
		e.setMFA(org, "REQUIRED_FOR_ALL", "totp")
		want(t, e.sdk("/b2b/otps/sms/send", map[string]any{"organization_id": org, "member_id": mid}, tok), 403, "mfa_method_not_allowed")
	})
}
