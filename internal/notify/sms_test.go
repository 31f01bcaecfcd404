package notify_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/notify/twiliotest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

const (
	testSID   = "AC0123456789abcdef0123456789abcdef"
	testToken = "auth-token-never-logged"
)

func TestTwilioSend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gw := twiliotest.New(t, testSID, testToken)
	tw, err := notify.NewTwilio(gw.URL+"/", testSID, testToken, "+15005550006", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.SendSMS(ctx, notify.SMS{To: "+14155552671", Body: "123456 is your code"}); err != nil {
		t.Fatalf("send: %v", err)
	}
	got := gw.Messages()
	if len(got) != 1 || got[0].To != "+14155552671" || got[0].From != "+15005550006" || got[0].Body != "123456 is your code" {
		t.Fatalf("gateway saw %+v", got)
	}

	// A Messaging Service SID is sent as MessagingServiceSid, not From.
	svc, _ := notify.NewTwilio(gw.URL, testSID, testToken, "MG0123456789abcdef0123456789abcdef", nil)
	if err := svc.SendSMS(ctx, notify.SMS{To: "+14155552671", Body: "hi"}); err != nil {
		t.Fatalf("send via service: %v", err)
	}
	if m := gw.Messages()[1]; m.From != "" || m.MessagingServiceSID != "MG0123456789abcdef0123456789abcdef" {
		t.Fatalf("service send = %+v", m)
	}
}

func TestTwilioErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gw := twiliotest.New(t, testSID, testToken)
	gw.Refuse("+14155550001", twiliotest.Refusal{Status: 400, Code: 21610, Message: "Attempt to send to unsubscribed recipient"})
	gw.Refuse("+14155550002", twiliotest.Refusal{Status: 400, Code: 21408, Message: "Permission to send an SMS has not been enabled"})
	gw.Refuse("+14155550003", twiliotest.Refusal{Status: 400, Code: 21614, Message: "not a mobile number"})
	gw.Refuse("+14155550004", twiliotest.Refusal{Status: 429, Code: 20429, Message: "Too Many Requests"})
	tw, _ := notify.NewTwilio(gw.URL, testSID, testToken, "+15005550006", nil)

	for _, tc := range []struct {
		to       string
		sentinel error
		code     int
	}{
		{"+14155550001", notify.ErrSMSUnsubscribed, 21610},
		{"+14155550002", notify.ErrSMSCountryNotAllowed, 21408},
		{"+14155550003", notify.ErrSMSInvalidNumber, 21614},
		{"+14155550004", nil, 20429},
		{"5551234", notify.ErrSMSInvalidNumber, 21211}, // the fake validates E.164 like Twilio
	} {
		err := tw.SendSMS(ctx, notify.SMS{To: tc.to, Body: "x"})
		var ge *notify.GatewayError
		if !errors.As(err, &ge) || ge.Code != tc.code {
			t.Errorf("%s: err = %v, want gateway code %d", tc.to, err, tc.code)
			continue
		}
		if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
			t.Errorf("%s: %v does not match %v", tc.to, err, tc.sentinel)
		}
		for _, s := range []error{notify.ErrSMSUnsubscribed, notify.ErrSMSCountryNotAllowed, notify.ErrSMSInvalidNumber} {
			if s != tc.sentinel && errors.Is(err, s) {
				t.Errorf("%s: %v wrongly matches %v", tc.to, err, s)
			}
		}
	}

	// Wrong credentials: the gateway's 401 is reported, the token is not.
	bad, _ := notify.NewTwilio(gw.URL, testSID, "wrong-token-value", "+15005550006", nil)
	err := bad.SendSMS(ctx, notify.SMS{To: "+14155552671", Body: "x"})
	var ge *notify.GatewayError
	if !errors.As(err, &ge) || ge.Status != http.StatusUnauthorized || ge.Code != 20003 {
		t.Fatalf("bad token: %v", err)
	}
	if strings.Contains(err.Error(), "wrong-token-value") {
		t.Fatalf("error leaks the token: %v", err)
	}
	if len(gw.Messages()) != 0 {
		t.Fatalf("refused messages were recorded: %+v", gw.Messages())
	}

	// An unreachable gateway is an error that names neither SID nor token.
	down, _ := notify.NewTwilio("http://"+closedPort(t), testSID, testToken, "+15005550006", nil)
	err = down.SendSMS(ctx, notify.SMS{To: "+14155552671", Body: "x"})
	if err == nil || strings.Contains(err.Error(), testSID) || strings.Contains(err.Error(), testToken) {
		t.Fatalf("unreachable gateway: %v", err)
	}
}

func TestNewTwilioValidates(t *testing.T) {
	t.Parallel()
	for _, tc := range [][4]string{
		{"", testSID, testToken, "+15005550006"},
		{"ftp://x", testSID, testToken, "+15005550006"},
		{"https://user:pw@api.twilio.com", testSID, testToken, "+15005550006"},
		{"https://api.twilio.com", "", testToken, "+15005550006"},
		{"https://api.twilio.com", "AC/../x", testToken, "+15005550006"},
		{"https://api.twilio.com", testSID, "", "+15005550006"},
		{"https://api.twilio.com", testSID, testToken, " "},
	} {
		if _, err := notify.NewTwilio(tc[0], tc[1], tc[2], tc[3], nil); err == nil {
			t.Errorf("NewTwilio(%q) accepted", tc)
		} else if tc[2] != "" && strings.Contains(err.Error(), tc[2]) {
			t.Errorf("error leaks the token: %v", err)
		}
	}
}

// Every send carries the account SID and auth token as HTTP Basic, so a
// plain-HTTP gateway is accepted only on this machine; the local gateways
// of tests (httptest, on 127.0.0.1) keep working.
func TestNewTwilioRefusesHTTPToRemoteHost(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"http://remote-host", "http://api.twilio.com", "http://10.0.0.5:8080/", "http://localhost.example.com"} {
		_, err := notify.NewTwilio(u, testSID, testToken, "+15005550006", nil)
		if err == nil || !strings.Contains(err.Error(), "https") {
			t.Errorf("NewTwilio(%q) = %v, want a refusal asking for https", u, err)
		} else if strings.Contains(err.Error(), testToken) || strings.Contains(err.Error(), testSID) {
			t.Errorf("NewTwilio(%q) error shows a credential: %v", u, err)
		}
		if err := notify.CheckSMSURL(u); err == nil {
			t.Errorf("CheckSMSURL(%q) accepted what NewTwilio refuses", u)
		}
	}
	for _, u := range []string{"https://api.twilio.com", "http://127.0.0.1:8080", "http://localhost", "http://[::1]:9000"} {
		if _, err := notify.NewTwilio(u, testSID, testToken, "+15005550006", nil); err != nil {
			t.Errorf("NewTwilio(%q): %v", u, err)
		}
		if err := notify.CheckSMSURL(u); err != nil {
			t.Errorf("CheckSMSURL(%q): %v", u, err)
		}
	}
}

func TestOutboxSMS(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ob := notify.NewOutbox(db, clock.NewFake(t0))
		msg, err := notify.SMSCodeText("+14155552671", notify.CodeData{ProjectName: "App", OrganizationName: "Acme\nInc",
			Code: "482913", ExpiresIn: 2 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(msg.Body, "482913 is your Acme Inc verification code. It expires in 2 minutes.") {
			t.Fatalf("body = %q", msg.Body)
		}
		// Inside a transaction the outbox writes through it (on SQLite a
		// write outside would wait forever for the one writer connection).
		err = db.Tx(ctx, func(q store.Querier) error {
			return notify.SendSMSIn(ctx, q, notify.FanoutSMS(nil, ob), msg)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := ob.Send(ctx, notify.Email{To: "ada@example.com", Subject: "s", Text: "t"}); err != nil {
			t.Fatal(err)
		}
		got, err := ob.List(ctx, "+14155552671", 10)
		if err != nil || len(got) != 1 {
			t.Fatalf("list: %+v %v", got, err)
		}
		if got[0].Channel != notify.ChannelSMS || got[0].Text != msg.Body || len(got[0].Codes) != 1 || got[0].Codes[0] != "482913" {
			t.Fatalf("captured %+v", got[0])
		}
		if err := ob.SendSMS(ctx, notify.SMS{To: " ", Body: "x"}); err == nil {
			t.Fatal("empty recipient accepted")
		}
	})
}

func TestFanoutSMS(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gw := twiliotest.New(t, testSID, testToken)
	tw, _ := notify.NewTwilio(gw.URL, testSID, testToken, "+15005550006", nil)
	down, _ := notify.NewTwilio("http://"+closedPort(t), testSID, testToken, "+15005550006", nil)
	ob := notify.NewOutbox(storetest.SQLite(t), clock.NewFake(t0))
	err := notify.FanoutSMS(down, ob, tw).SendSMS(ctx, notify.SMS{To: "+14155552671", Body: "111111"})
	if err == nil || !strings.Contains(err.Error(), "sms sender 0") {
		t.Fatalf("want the failure of sender 0, got %v", err)
	}
	if len(gw.Messages()) != 1 {
		t.Fatal("a failing sender skipped the gateway")
	}
	if got, _ := ob.List(ctx, "", 5); len(got) != 1 {
		t.Fatal("a failing sender skipped the outbox")
	}
	if _, err := notify.SMSCodeText("", notify.CodeData{ProjectName: "p", Code: "1", ExpiresIn: time.Minute}); err == nil {
		t.Fatal("empty recipient accepted")
	}
	if _, err := notify.SMSCodeText("+1", notify.CodeData{ProjectName: "p", Code: "1 2", ExpiresIn: time.Minute}); err == nil {
		t.Fatal("malformed code accepted")
	}
}

// A message the gateway accepts but marks failed or undelivered at once,
// with or without an error code, is a refusal, not a delivery: the code it
// would have carried never arrives. A carrier code that concerns the
// recipient still unwraps to its sentinel.
func TestTwilioAcceptedButFailed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gw := twiliotest.New(t, testSID, testToken)
	gw.Fail("+14155550011", twiliotest.Failure{Status: "failed"})
	gw.Fail("+14155550012", twiliotest.Failure{Status: "undelivered"})
	gw.Fail("+14155550013", twiliotest.Failure{Status: "queued", Code: 21610, Message: "unsubscribed"})
	tw, _ := notify.NewTwilio(gw.URL, testSID, testToken, "+15005550006", nil)
	for _, to := range []string{"+14155550011", "+14155550012", "+14155550013"} {
		var ge *notify.GatewayError
		if err := tw.SendSMS(ctx, notify.SMS{To: to, Body: "x"}); !errors.As(err, &ge) {
			t.Errorf("%s: %v, want a gateway error", to, err)
		}
	}
	if err := tw.SendSMS(ctx, notify.SMS{To: "+14155550013", Body: "x"}); !errors.Is(err, notify.ErrSMSUnsubscribed) {
		t.Errorf("error code 21610: %v, want ErrSMSUnsubscribed", err)
	}
	if err := tw.SendSMS(ctx, notify.SMS{To: "+14155552671", Body: "x"}); err != nil {
		t.Fatalf("a queued message: %v", err)
	}
}

// The gateway's answers echo the message body, and the edge logs an
// error's text: whatever the gateway says, the live code (and the
// recipient's number) never reach the error, while the status, the
// gateway's error code and its own words do.
func TestTwilioErrorsNeverQuoteTheCode(t *testing.T) {
	t.Parallel()
	const code, to = "493817", "+14155552671"
	answers := map[string]struct {
		status int
		ctype  string
		body   string
		want   []string
	}{
		"unexpected success": {http.StatusCreated, "application/json", `{"data":{"body":"493817 is your code"}}`,
			[]string{"HTTP 201", "application/json", "39 bytes"}},
		"non-JSON error": {http.StatusBadGateway, "text/plain; charset=utf-8", "upstream said: Body=493817+is+your+code To=" + to,
			[]string{"HTTP 502", "text/plain", "bytes"}},
		"JSON error quoting the body": {http.StatusBadRequest, "application/json",
			`{"code":21617,"message":"Body '493817 is your Acme verification code.' is too long for +1 (415) 555-2671","status":400}`,
			[]string{"HTTP 400", "code 21617", "is too long for"}},
		"JSON error quoting the number": {http.StatusBadRequest, "application/json",
			`{"code":21211,"message":"The 'To' number +14155552671 is not a valid phone number.","status":400}`,
			[]string{"code 21211", "is not a valid phone number"}},
		"accepted but failed, quoting the body": {http.StatusCreated, "application/json",
			`{"sid":"SM1","status":"failed","error_code":30007,"error_message":"Carrier filtered: 493817 is your code"}`,
			[]string{"code 30007", "Carrier filtered"}},
	}
	for name, a := range answers {
		gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", a.ctype)
			w.WriteHeader(a.status)
			_, _ = io.WriteString(w, a.body)
		}))
		tw, err := notify.NewTwilio(gw.URL, testSID, testToken, "+15005550006", nil)
		if err != nil {
			t.Fatal(err)
		}
		err = tw.SendSMS(context.Background(), notify.SMS{To: to, Body: code + " is your Acme verification code. It expires in 10 minutes."})
		gw.Close()
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, code) || strings.Contains(msg, "4155552671") || strings.Contains(msg, "555-2671") {
			t.Errorf("%s: the error quotes the code or the number: %s", name, msg)
		}
		for _, w := range a.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", name, err, w)
			}
		}
	}

	// A code that is not all digits is taken out as the body's word.
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"code":30007,"message":"Filtered: 'K7Q2ZP is your code' in 2 parts"}`)
	}))
	defer gw.Close()
	tw, _ := notify.NewTwilio(gw.URL, testSID, testToken, "+15005550006", nil)
	err := tw.SendSMS(context.Background(), notify.SMS{To: to, Body: "K7Q2ZP is your code. It expires in 2 minutes."})
	if err == nil || strings.Contains(err.Error(), "K7Q2ZP") || !strings.Contains(err.Error(), "in 2 parts") {
		t.Errorf("alphanumeric code: %v", err)
	}
}
