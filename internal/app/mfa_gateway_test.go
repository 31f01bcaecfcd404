package app_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/notify/twiliotest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// newEnvConfig is newEnv with a configuration hook.
func newEnvConfig(t *testing.T, db *store.DB, mut func(*config.Config)) *env {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	cfg := config.Defaults()
	cfg.Dev = true
	cfg.BodyLimit = 64 << 10
	mut(&cfg)
	a, err := app.NewWithDB(context.Background(), cfg, db, app.Options{Clock: clk,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Widget: fstest.MapFS{"latchkey.js": {Data: []byte("x")}}})
	if err != nil {
		t.Fatalf("app: %v", err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	a.Config.BaseURL = srv.URL
	e := &env{t: t, app: a, srv: srv, clock: clk, origin: testOrigin, page: testOrigin + "/login"}
	e.proj = e.newProject("Customer App")
	return e
}

// SMS codes go through the configured Twilio-compatible gateway (here a
// local server speaking its API) and, in dev mode, into the dev mailbox;
// gateway refusals become the catalogue's phone errors.
func TestSMSThroughGateway(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		gw := twiliotest.New(t, "AC00000000000000000000000000000001", "gateway-token")
		e := newEnvConfig(t, db, func(c *config.Config) {
			c.SMSURL, c.SMSAccountSID, c.SMSAuthToken, c.SMSFrom = gw.URL, gw.SID, gw.Token, "+15005550006"
		})
		org, mid := e.mfaMember()
		ist, _ := e.mfaLogin(org, "ada@secure.test")
		if r := e.smsSend(org, mid, ist, "+14155552671"); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		msgs := gw.Messages()
		code := e.lastSMS("+14155552671")
		if len(msgs) != 1 || msgs[0].To != "+14155552671" || msgs[0].From != "+15005550006" ||
			!strings.HasPrefix(msgs[0].Body, code+" is your Secure verification code") {
			t.Fatalf("gateway got %+v (mailbox code %s)", msgs, code)
		}
		if r := e.smsAuth(org, mid, ist, code, nil); r.Status != 200 {
			t.Fatalf("authenticate: %s", r.Raw)
		}

		gw.Refuse("+14155550177", twiliotest.Refusal{Status: 400, Code: 21610, Message: "Attempt to send to unsubscribed recipient"})
		gw.Refuse("+14155550178", twiliotest.Refusal{Status: 400, Code: 21408, Message: "Permission to send an SMS has not been enabled"})
		gw.Refuse("+14155550179", twiliotest.Refusal{Status: 500, Code: 20500, Message: "Internal Server Error"})
		bob := e.createMember(org, "bob@secure.test")
		bist, _ := e.mfaLogin(org, "bob@secure.test")
		want(t, e.smsSend(org, bob, bist, "+14155550177"), 400, "unsubscribed_phone_number")
		want(t, e.smsSend(org, bob, bist, "+14155550178"), 400, "invalid_phone_number_country_code")
		want(t, e.smsSend(org, bob, bist, "+14155550179"), 503, "sms_delivery_failed")
		// A refused send leaves no usable code behind (the mailbox copy
		// was captured before the gateway refused).
		want(t, e.smsAuth(org, bob, bist, e.lastSMS("+14155550179"), nil), 404, "otp_code_not_found")
	})
}

// Without a gateway (and outside dev mode) a send is a clear error.
func TestSMSWithoutGateway(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnvConfig(t, db, func(c *config.Config) { c.Dev, c.EncryptionKey = false, apptest.TestEncryptionKey })
		org := e.createOrg("secure", "NOT_ALLOWED")
		mid := e.createMember(org, "ada@secure.test")
		r := e.backend(http.MethodPost, "/v1/b2b/otps/sms/send", map[string]any{"organization_id": org, "member_id": mid,
			"mfa_phone_number": "+14155552671"})
		want(t, r, 503, "sms_delivery_failed")
		// The backend may send for a member it names, but authenticating
		// needs the login's IST or a session.
		want(t, e.backend(http.MethodPost, "/v1/b2b/otps/sms/authenticate", map[string]any{"organization_id": org,
			"member_id": mid, "code": "123456"}), 401, "user_unauthenticated")
	})
}
