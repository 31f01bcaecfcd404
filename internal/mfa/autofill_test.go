package mfa_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// SMS autofill needs metadata (an app hash, a bound domain) this server
// has no setting for: asking for it is unsupported_parameter naming the
// field, before any text goes out, and enable_autofill false asks for
// nothing.
func TestSMSSendRefusesAutofill(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid := e.MFAMember()
		ist, _ := e.MFALogin(org, "ada@secure.test")
		send := func(extra map[string]any) apptest.Resp {
			body := map[string]any{"organization_id": org, "member_id": mid, "intermediate_session_token": ist, "mfa_phone_number": "+14155552671"}
			for k, v := range extra {
				body[k] = v
			}
			return e.SDK(http.MethodPost, "/b2b/otps/sms/send", body, "")
		}
		for field, extra := range map[string]map[string]any{
			"enable_autofill":                   {"enable_autofill": true},
			"autofill_session_duration_minutes": {"autofill_session_duration_minutes": 5},
		} {
			r := send(extra)
			apptest.Want(t, r, 400, "unsupported_parameter")
			if d, _ := r.Body["error_details"].(map[string]any); d["parameter"] != field {
				t.Errorf("refusal names %v, want %s", r.Body["error_details"], field)
			}
		}
		if n := e.Count("SELECT COUNT(*) FROM dev_outbox WHERE channel = 'sms'"); n != 0 {
			t.Fatalf("%d texts sent for refused requests", n)
		}
		apptest.Want(t, send(map[string]any{"enable_autofill": false}), 200, "")
		apptest.Want(t, e.SMSAuth(org, mid, ist, e.LastSMS("+14155552671"), nil), 200, "")
	})
}
