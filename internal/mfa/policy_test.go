package mfa_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
)

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
		setup   func(e *apptest.Env, org, mid, token string) // runs on an OPTIONAL organization with a logged-in member
		policy  string
		methods []string
		want    outcome
	}{
		{name: "optional, nothing enrolled", policy: "OPTIONAL", want: outcome{}},
		{name: "optional, app registered but not opted in", policy: "OPTIONAL",
			setup: func(e *apptest.Env, org, mid, tok string) { e.SessionTOTP(org, mid, tok, nil) }, want: outcome{}},
		{name: "optional, opted in with an app", policy: "OPTIONAL",
			setup: func(e *apptest.Env, org, mid, tok string) {
				e.SessionTOTP(org, mid, tok, map[string]any{"set_mfa_enrollment": "enroll"})
			}, want: outcome{mfa: true, options: "totp"}},
		{name: "optional, opted in then out", policy: "OPTIONAL",
			setup: func(e *apptest.Env, org, mid, tok string) {
				_, tok = e.SessionTOTP(org, mid, tok, map[string]any{"set_mfa_enrollment": "enroll"})
				e.SessionSMS(org, mid, tok, "+14155550100", map[string]any{"set_mfa_enrollment": "unenroll"})
			}, want: outcome{}},
		{name: "required, nothing enrolled", policy: "REQUIRED_FOR_ALL", want: outcome{mfa: true}},
		{name: "required, app", policy: "REQUIRED_FOR_ALL",
			setup: func(e *apptest.Env, org, mid, tok string) { e.SessionTOTP(org, mid, tok, nil) }, want: outcome{mfa: true, options: "totp"}},
		{name: "required, sms is the default", policy: "REQUIRED_FOR_ALL",
			setup: func(e *apptest.Env, org, mid, tok string) { e.SessionSMS(org, mid, tok, "+14155550101", nil) },
			want:  outcome{mfa: true, options: "sms", initiated: true}},
		{name: "required, both, app enrolled first is the default", policy: "REQUIRED_FOR_ALL",
			setup: func(e *apptest.Env, org, mid, tok string) {
				_, tok = e.SessionTOTP(org, mid, tok, nil)
				e.SessionSMS(org, mid, tok, "+14155550102", nil)
			}, want: outcome{mfa: true, options: "both"}},
		{name: "required, both, sms made the default", policy: "REQUIRED_FOR_ALL",
			setup: func(e *apptest.Env, org, mid, tok string) {
				_, tok = e.SessionTOTP(org, mid, tok, nil)
				e.SessionSMS(org, mid, tok, "+14155550103", map[string]any{"set_default_mfa": true})
			}, want: outcome{mfa: true, options: "both", initiated: true}},
		{name: "required, sms default but only apps allowed", policy: "REQUIRED_FOR_ALL", methods: []string{"totp"},
			setup: func(e *apptest.Env, org, mid, tok string) {
				_, tok = e.SessionTOTP(org, mid, tok, nil)
				e.SessionSMS(org, mid, tok, "+14155550104", map[string]any{"set_default_mfa": true})
			}, want: outcome{mfa: true, options: "both"}},
		{name: "required, app made the default again", policy: "REQUIRED_FOR_ALL",
			setup: func(e *apptest.Env, org, mid, tok string) {
				tok = e.SessionSMS(org, mid, tok, "+14155550105", nil)
				e.SessionTOTP(org, mid, tok, map[string]any{"set_default_mfa": true})
			}, want: outcome{mfa: true, options: "both"}},
	}
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		for i, tc := range cases {
			org := e.CreateOrg(fmt.Sprintf("org%02d", i), "NOT_ALLOWED", nil)
			email := fmt.Sprintf("m%02d@matrix.test", i)
			mid := e.CreateMember(org, email)
			if tc.setup != nil {
				tok := e.EmailLogin(org, email)["session_token"].(string)
				tc.setup(e, org, mid, tok)
			}
			e.SetMFA(org, tc.policy, tc.methods...)
			d := e.EmailLogin(org, email)
			req, _ := d["mfa_required"].(map[string]any)
			if got := req != nil; got != tc.want.mfa || (d["member_session"] != nil) == tc.want.mfa {
				t.Fatalf("%s: mfa_required = %v, session = %v", tc.name, req, d["member_session"] != nil)
			}
			if !tc.want.mfa {
				apptest.WantFactors(t, d, "email_otp/email/PRIMARY")
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
				num := e.MemberByID(org, mid)["mfa_phone_number"].(string)
				if opts["mfa_phone_number"] != organization.MaskPhone(num) || opts["mfa_phone_number"] == num {
					t.Fatalf("%s: member_options.mfa_phone_number = %v for %s", tc.name, opts["mfa_phone_number"], num)
				}
				r := e.SMSAuth(org, mid, ist, e.LastSMS(num), nil)
				if r.Status != 200 {
					t.Fatalf("%s: server-initiated code: %s", tc.name, r.Raw)
				}
				apptest.WantFactors(t, r.Data(), "email_otp/email/PRIMARY", "otp/sms/SECONDARY")
			}
		}
	})
}

// Restricted MFA methods are enforced by every MFA endpoint, not only by
// what the widget offers.
func TestMFARestrictedMethods(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org := e.CreateOrg("smsonly", "NOT_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@smsonly.test")
		tok := e.EmailLogin(org, "ada@smsonly.test")["session_token"].(string)
		secret, tok := e.SessionTOTP(org, mid, tok, nil)
		codes, _ := e.Backend(http.MethodGet, "/v1/b2b/recovery_codes/"+org+"/"+mid, nil).Body["recovery_codes"].([]any)
		if len(codes) == 0 {
			t.Fatal("no recovery codes before the restriction")
		}
		e.SetMFA(org, "REQUIRED_FOR_ALL", "sms_otp")
		ist, req := e.MFALogin(org, "ada@smsonly.test")
		if req["member_options"].(map[string]any)["totp_registration_id"] == "" {
			t.Fatalf("member_options = %v", req)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": mid, "intermediate_session_token": ist}, ""),
			403, "operation_restricted_by_organization_mfa_methods")
		e.Clock.Advance(30 * time.Second)
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "code": apptest.TOTPAt(t, secret, e.Clock.Now())}, ""), 403, "operation_restricted_by_organization_mfa_methods")
		// Recovery codes back up the app: they pass MFA only where apps
		// are allowed, and are neither shown nor renewed where they are not.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/recovery_codes/recover", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "recovery_code": codes[0]}, ""), 403, "operation_restricted_by_organization_mfa_methods")
		apptest.Want(t, e.SDK(http.MethodGet, "/b2b/recovery_codes", nil, tok), 403, "operation_restricted_by_organization_mfa_methods")
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/recovery_codes/"+org+"/"+mid, nil), 403,
			"operation_restricted_by_organization_mfa_methods")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/recovery_codes/rotate", map[string]any{}, tok), 403,
			"operation_restricted_by_organization_mfa_methods")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/recovery_codes/rotate", map[string]any{"organization_id": org, "member_id": mid}),
			403, "operation_restricted_by_organization_mfa_methods")
		if n := e.Count(`SELECT COUNT(*) FROM recovery_codes WHERE member_id = $1 AND used_at IS NULL`, mid); n != len(codes) {
			t.Fatalf("%d unused recovery codes left, want %d", n, len(codes))
		}
		// SMS is allowed; the member has an app, so with only the IST they
		// cannot add a phone: the organization's admin must remove the app
		// first (or the member from a session).
		apptest.Want(t, e.SMSSend(org, mid, ist, "+14155550110"), 403, "unauthorized_action")
		if r := e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+mid+"/totp", nil); r.Status != 200 {
			t.Fatalf("delete totp: %s", r.Raw)
		}
		if r := e.SMSSend(org, mid, ist, "+14155550110"); r.Status != 200 {
			t.Fatalf("sms enrollment: %s", r.Raw)
		}
		if r := e.SMSAuth(org, mid, ist, e.LastSMS("+14155550110"), nil); r.Status != 200 {
			t.Fatalf("sms authenticate: %s", r.Raw)
		}
		e.SetMFA(org, "REQUIRED_FOR_ALL", "totp")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/otps/sms/send", map[string]any{"organization_id": org, "member_id": mid}, tok), 403, "operation_restricted_by_organization_mfa_methods")
	})
}
