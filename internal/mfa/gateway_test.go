package mfa_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/notify/twiliotest"
	"github.com/latchkey/latchkey/internal/store"
)

// SMS codes go through the configured Twilio-compatible gateway (here a
// local server speaking its API) and, in dev mode, into the dev mailbox;
// gateway refusals become the catalogue's phone errors.
func TestSMSThroughGateway(t *testing.T) {
	apptest.Schema.Each(t, func(t *testing.T, db *store.DB) {
		gw := twiliotest.New(t, "AC00000000000000000000000000000001", "gateway-token")
		e := apptest.New(t, db, func(c *config.Config) {
			c.SMSURL, c.SMSAccountSID, c.SMSAuthToken, c.SMSFrom = gw.URL, gw.SID, gw.Token, "+15005550006"
		})
		org, mid := e.MFAMember()
		ist, _ := e.MFALogin(org, "ada@secure.test")
		if r := e.SMSSend(org, mid, ist, "+14155552671"); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		msgs := gw.Messages()
		code := e.LastSMS("+14155552671")
		if len(msgs) != 1 || msgs[0].To != "+14155552671" || msgs[0].From != "+15005550006" ||
			!strings.HasPrefix(msgs[0].Body, code+" is your Secure verification code") {
			t.Fatalf("gateway got %+v (mailbox code %s)", msgs, code)
		}
		if r := e.SMSAuth(org, mid, ist, code, nil); r.Status != 200 {
			t.Fatalf("authenticate: %s", r.Raw)
		}

		gw.Refuse("+14155550177", twiliotest.Refusal{Status: 400, Code: 21610, Message: "Attempt to send to unsubscribed recipient"})
		gw.Refuse("+14155550178", twiliotest.Refusal{Status: 400, Code: 21408, Message: "Permission to send an SMS has not been enabled"})
		gw.Refuse("+14155550179", twiliotest.Refusal{Status: 500, Code: 20500, Message: "Internal Server Error"})
		bob := e.CreateMember(org, "bob@secure.test")
		bist, _ := e.MFALogin(org, "bob@secure.test")
		apptest.Want(t, e.SMSSend(org, bob, bist, "+14155550177"), 400, "unsubscribed_phone_number")
		apptest.Want(t, e.SMSSend(org, bob, bist, "+14155550178"), 400, "invalid_phone_number_country_code")
		apptest.Want(t, e.SMSSend(org, bob, bist, "+14155550179"), 503, "sms_delivery_failed")
		// A refused send leaves no usable code behind (the mailbox copy
		// was captured before the gateway refused).
		apptest.Want(t, e.SMSAuth(org, bob, bist, e.LastSMS("+14155550179"), nil), 404, "otp_code_not_found")
	})
}

// Without a gateway (and outside dev mode) a send is a clear error.
func TestSMSWithoutGateway(t *testing.T) {
	apptest.Schema.Each(t, func(t *testing.T, db *store.DB) {
		e := apptest.New(t, db, func(c *config.Config) { c.Dev, c.EncryptionKey = false, apptest.TestEncryptionKey })
		org := e.CreateOrg("secure", "NOT_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@secure.test")
		r := e.Backend(http.MethodPost, "/v1/b2b/otps/sms/send", map[string]any{"organization_id": org, "member_id": mid,
			"mfa_phone_number": "+14155552671"})
		apptest.Want(t, r, 503, "sms_delivery_failed")
		// The backend may send for a member it names, but authenticating
		// needs the login's IST or a session.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/otps/sms/authenticate", map[string]any{"organization_id": org,
			"member_id": mid, "code": "123456"}), 401, "user_unauthenticated")
	})
}

// When the code a login sends by itself does not go out (the login has
// committed, so no answer can say so), the code is retired and the
// failure is logged at warning level with the gateway's error: with the
// number masked, never the code or the whole number.
func TestAutoSentSMSFailureIsLogged(t *testing.T) {
	apptest.Schema.Each(t, func(t *testing.T, db *store.DB) {
		gw := twiliotest.New(t, "AC00000000000000000000000000000001", "gateway-token")
		e := apptest.New(t, db, func(c *config.Config) {
			c.SMSURL, c.SMSAccountSID, c.SMSAuthToken, c.SMSFrom = gw.URL, gw.SID, gw.Token, "+15005550006"
		})
		org, mid, num := smsEnrolledMember(t, e)
		gw.Refuse(num, twiliotest.Refusal{Status: 500, Code: 20500, Message: "Internal Server Error sending to " + num})
		ist, req := e.MFALogin(org, "ada@secure.test")
		if req["secondary_auth_initiated"] != "sms_otp" {
			t.Fatalf("the login started no code: %v", req)
		}
		code := e.LastSMS(num) // the dev mailbox's copy, taken before the gateway refused
		apptest.Want(t, e.SMSAuth(org, mid, ist, code, nil), 404, "otp_code_not_found")

		var line string
		for _, l := range strings.Split(e.Logs(), "\n") {
			if strings.Contains(l, "SMS code was not delivered") {
				line = l
			}
		}
		if !strings.Contains(line, "level=WARN") || !strings.Contains(line, "code 20500") ||
			!strings.Contains(line, "+*******2671") || !strings.Contains(line, mid) {
			t.Fatalf("no warning with the gateway's error, the masked number and the member: %q\n%s", line, e.Logs())
		}
		if strings.Contains(line, code) || strings.Contains(line, "4155552671") {
			t.Fatalf("the warning quotes the code or the number: %q", line)
		}
	})
}
