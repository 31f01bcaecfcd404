package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/metrics"
	"github.com/latchkey/latchkey/internal/notify"
)

func scrape(t *testing.T, e *apptest.Env) string {
	t.Helper()
	r := e.Get("/metrics")
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
	return string(r.Raw)
}

func want(t *testing.T, body, pattern string) {
	t.Helper()
	if !regexp.MustCompile(pattern).MatchString(body) {
		t.Errorf("/metrics lacks %s", pattern)
	}
}

// /metrics counts requests by route pattern (not raw path) and status,
// times them, and counts logins by method and result.
func TestMetricsEndpoint(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/otps/email/login_or_signup",
			map[string]any{"email_address": "ada@acme.test", "organization_id": org}, ""), 200, "")
		_, codes := e.LastMail("ada@acme.test")
		e.SDK(http.MethodPost, "/b2b/otps/email/authenticate", map[string]any{"email_address": "ada@acme.test",
			"organization_id": org, "code": "not-it"}, "")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/otps/email/authenticate", map[string]any{"email_address": "ada@acme.test",
			"organization_id": org, "code": codes[0]}, ""), 200, "")
		e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org, nil)
		e.Get("/no/such/route")

		body := scrape(t, e)
		want(t, body, `latchkey_http_requests_total\{route="POST /sdk/v1/b2b/otps/email/authenticate",status="200"\} 1`)
		want(t, body, `latchkey_http_requests_total\{route="GET /v1/b2b/organizations/\{organization_id\}",status="200"\} 1`)
		want(t, body, `latchkey_http_requests_total\{route="unmatched",status="404"\} 1`)
		want(t, body, `latchkey_http_request_duration_seconds_bucket\{route="POST /sdk/v1/b2b/otps/email/authenticate",le="[0-9.+Inf]+"\} \d`)
		want(t, body, `latchkey_logins_total\{method="email_otp",result="success"\} 1`)
		want(t, body, `latchkey_logins_total\{method="email_otp",result="failure"\} 1`)
		want(t, body, `go_goroutines \d`)
		// The login signed a session JWT; the fast path's check never failed.
		want(t, body, `latchkey_rs256_fast_path_fallbacks_total 0`)
		if strings.Contains(body, org) {
			t.Error("/metrics labels carry a raw path (an organization id)")
		}
	})
}

type failingMailer struct{}

func (failingMailer) Send(context.Context, notify.Email) error { return errors.New("down") }

type okMailer struct{}

func (okMailer) Send(context.Context, notify.Email) error { return nil }

type okSMS struct{}

func (okSMS) SendSMS(context.Context, notify.SMS) error { return nil }

func TestDeliveryCounters(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	ctx := context.Background()
	_ = m.Mailer("smtp", okMailer{}).Send(ctx, notify.Email{})
	_ = m.Mailer("smtp", okMailer{}).Send(ctx, notify.Email{})
	_ = m.Mailer("smtp", failingMailer{}).Send(ctx, notify.Email{})
	_ = m.SMSSender("sms_gateway", okSMS{}).SendSMS(ctx, notify.SMS{})
	m.Lockout("password")
	srv := http.NewServeMux()
	srv.Handle("/metrics", m.Handler())
	rec := &recorder{h: http.Header{}}
	req, _ := http.NewRequest(http.MethodGet, "/metrics", nil)
	srv.ServeHTTP(rec, req)
	body := rec.b.String()
	for _, p := range []string{`latchkey_emails_total\{result="sent",transport="smtp"\} 2`,
		`latchkey_emails_total\{result="failed",transport="smtp"\} 1`,
		`latchkey_sms_total\{result="sent",transport="sms_gateway"\} 1`,
		`latchkey_lockouts_total\{method="password"\} 1`} {
		want(t, body, p)
	}
}

// brokenBatch answers a batch as SMTP does when the connection breaks
// during its second message: the first delivered, the second failed, the
// rest handed back untried (notify.ErrNotAttempted).
type brokenBatch struct{ okMailer }

func (brokenBatch) SendAll(_ context.Context, es []notify.Email) []error {
	errs := make([]error, len(es))
	broken := errors.New("read: connection reset by peer")
	errs[1] = broken
	for i := 2; i < len(es); i++ {
		errs[i] = fmt.Errorf("%w (%w)", notify.ErrNotAttempted, broken)
	}
	return errs
}

// Messages a broken connection never carried were neither sent nor
// failed: the queue retries them at once, uncharged, and counting them
// failed made one reset connection look like a batch of refusals. They
// have a result of their own.
func TestDeliveryCountersNotAttempted(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	_ = notify.SendAll(context.Background(), m.Mailer("smtp", brokenBatch{}), make([]notify.Email, 5))
	rec := &recorder{h: http.Header{}}
	req, _ := http.NewRequest(http.MethodGet, "/metrics", nil)
	m.Handler().ServeHTTP(rec, req)
	body := rec.b.String()
	for _, p := range []string{`latchkey_emails_total\{result="sent",transport="smtp"\} 1\n`,
		`latchkey_emails_total\{result="failed",transport="smtp"\} 1\n`,
		`latchkey_emails_total\{result="not_attempted",transport="smtp"\} 3\n`} {
		want(t, body, p)
	}
}

type recorder struct {
	h http.Header
	b strings.Builder
}

func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) Write(p []byte) (int, error) { return r.b.Write(p) }
func (r *recorder) WriteHeader(int)             {}

// With LATCHKEY_METRICS_ADDR set, the main address does not serve /metrics
// (serve starts a listener of its own there).
func TestMetricsMovedOffMainAddress(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.SQLite(t), func(c *config.Config) { c.MetricsAddr = "127.0.0.1:0" })
	if r := e.Get("/metrics"); r.Status != http.StatusNotFound {
		t.Fatalf("/metrics on the main address: %d", r.Status)
	}
}

// cutBatch answers a batch as SMTP does when the queue's context ends
// during its third message (cut, called there, ends it): the first
// delivered, the second refused for good, the rest failed with the
// context's cause.
type cutBatch struct {
	okMailer
	cut func()
}

func (b cutBatch) SendAll(ctx context.Context, es []notify.Email) []error {
	errs := make([]error, len(es))
	errs[1] = fmt.Errorf("notify: smtp: 550 no such user: %w", notify.ErrUndeliverable)
	b.cut()
	for i := 2; i < len(es); i++ {
		errs[i] = fmt.Errorf("notify: smtp: %w (write: broken pipe)", context.Cause(ctx))
	}
	return errs
}

// Messages whose delivery a shutdown cut off are handed back uncharged
// (notify.Queue.release), as the ones a broken connection never carried:
// neither sent nor failed, they count as not_attempted. They counted
// failed, so every restart during a batch looked like refusals. A
// refusal for good during the cut, and an attempt that ran out its own
// time (the queue charges it), still count failed.
func TestDeliveryCountersCutOffByShutdown(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	stopping, stop := context.WithCancel(context.Background())
	defer stop()
	// As the queue sends: under an attempt's timeout of the server's context.
	attempt, cancel := context.WithTimeout(stopping, time.Minute)
	defer cancel()
	_ = notify.SendAll(attempt, m.Mailer("smtp", cutBatch{cut: stop}), make([]notify.Email, 5))
	_ = m.Mailer("smtp", failingMailer{}).Send(attempt, notify.Email{})
	timedOut, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	_ = notify.SendAll(timedOut, m.Mailer("smtp", cutBatch{cut: func() {}}), make([]notify.Email, 4))
	rec := &recorder{h: http.Header{}}
	req, _ := http.NewRequest(http.MethodGet, "/metrics", nil)
	m.Handler().ServeHTTP(rec, req)
	body := rec.b.String()
	for _, p := range []string{`latchkey_emails_total\{result="sent",transport="smtp"\} 2\n`,
		`latchkey_emails_total\{result="failed",transport="smtp"\} 4\n`,
		`latchkey_emails_total\{result="not_attempted",transport="smtp"\} 4\n`} {
		want(t, body, p)
	}
}
