// Package metrics exposes the server's operational counters in the
// Prometheus text format: HTTP requests by route and status with latency
// histograms, logins by method and result, lockouts, email and SMS
// deliveries, and the Go runtime and process families of the official
// client library's default collectors, under the same names.
//
// It writes the format itself rather than use the client library: the
// handful of counters and one histogram here are atomics, and the library
// (with its protobuf model, procfs and hashing dependencies) was 1.3 MB of
// the binary and about 1.5 MiB of idle RSS, much of it pages touched at
// start (issue 12).
//
// Labels are bounded sets (route patterns, never raw paths; catalogued
// method names), so no request can grow the series count.
package metrics

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/rsasign"
)

// Metrics holds one server's counts. Each App has its own, so tests
// running many servers in one process do not share counts.
type Metrics struct {
	// requests holds each route and status's two series, so a request is
	// one map read and three atomic adds.
	requests cowMap[routeStatus, requestSeries]
	latency  cowMap[string, histogram] // by route, whatever the status

	logins, lockouts, emails, sms counterVec
	auditFail                     counter
}

type routeStatus struct {
	route  string
	status int
}

type requestSeries struct {
	count   counter
	latency *histogram
}

// New returns a fresh set of counts.
func New() *Metrics {
	return &Metrics{
		logins: counterVec{name: "latchkey_logins_total", labels: []string{"method", "result"},
			help: "Authentication attempts by method and result (success or failure)."},
		lockouts: counterVec{name: "latchkey_lockouts_total", labels: []string{"method"},
			help: "Attempts refused because a lockout or attempt limit was reached, by method."},
		// Only mail has not_attempted (result, mailResult): no SMS
		// sender hands a message back untried.
		emails: counterVec{name: "latchkey_emails_total", labels: []string{"transport", "result"},
			help: "Email deliveries by transport and result (sent, failed or not_attempted)."},
		sms: counterVec{name: "latchkey_sms_total", labels: []string{"transport", "result"},
			help: "SMS deliveries by transport and result (sent or failed)."},
	}
}

// Handler serves every family in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs := append(m.families(), goFamilies()...)
		serve(w, r, appendExposition(nil, append(fs, processFamilies()...)))
	})
}

// families are Latchkey's own.
func (m *Metrics) families() []family {
	requests := family{name: "latchkey_http_requests_total", kind: counterKind,
		help: "HTTP requests by route pattern and status code."}
	for k, s := range m.requests.all() {
		requests.series = append(requests.series, series{
			labels: []label{{"route", k.route}, {"status", strconv.Itoa(k.status)}},
			points: []point{{value: float64(s.count.n.Load())}}})
	}
	latency := family{name: "latchkey_http_request_duration_seconds", kind: histogramKind,
		help: "HTTP request latency by route pattern."}
	for route, h := range m.latency.all() {
		latency.series = append(latency.series, series{labels: []label{{"route", route}}, points: h.points()})
	}
	return []family{requests, latency, m.logins.family(), m.lockouts.family(), m.emails.family(), m.sms.family(),
		single("latchkey_audit_write_failures_total", "Audit events that could not be stored.",
			counterKind, float64(m.auditFail.n.Load())),
		single("latchkey_rs256_fast_path_fallbacks_total",
			"RS256 signatures of the fast path that failed their check and were made again by crypto/rsa (any is a fault).",
			counterKind, float64(rsasign.Fallbacks())),
	}
}

// ObserveRequest records one HTTP request; route is the mux pattern that
// matched ("unmatched" for none).
func (m *Metrics) ObserveRequest(route string, status int, d time.Duration) {
	k := routeStatus{route, status}
	s := m.requests.all()[k]
	if s == nil {
		s = m.requests.add(k, func() *requestSeries { return &requestSeries{latency: m.latency.get(route)} })
	}
	s.count.inc()
	s.latency.observe(d)
}

// Login records an authentication attempt.
func (m *Metrics) Login(method string, ok bool) {
	result := "failure"
	if ok {
		result = "success"
	}
	m.logins.inc(labelValues{method, result})
}

// Lockout records an attempt refused by a lockout or attempt limit.
func (m *Metrics) Lockout(method string) { m.lockouts.inc(labelValues{method}) }

// AuditWriteFailed counts an audit event that could not be stored.
func (m *Metrics) AuditWriteFailed() { m.auditFail.inc() }

// result is a delivery's result label. A message handed back with
// notify.ErrNotAttempted was never put to the server (the connection
// broke on an earlier one of its batch, and the queue retries it at once,
// uncharged): it was neither sent nor failed, and counted failed it made
// one reset connection look like a batch of refusals.
func result(err error) string {
	switch {
	case err == nil:
		return "sent"
	case errors.Is(err, notify.ErrNotAttempted):
		return "not_attempted"
	}
	return "failed"
}

// mailResult is result for a message of the mail queue, whose delivery a
// shutdown may cut off: the queue's context is canceled when the server
// stops (a signal's cause is context.Canceled too), the transport fails
// what it had not finished, and the queue hands those messages back
// uncharged (notify.Queue.release), as it does the ones a broken
// connection never carried. Neither sent nor failed, they count as
// not_attempted: counted failed, every restart in the middle of a batch
// looked like a burst of refusals. An attempt that ran out its own time
// (context.DeadlineExceeded) failed, and the queue charges it; a refusal
// for good (notify.ErrUndeliverable) failed whatever the shutdown, and
// the queue drops it.
func mailResult(ctx context.Context, err error) string {
	if err != nil && !errors.Is(err, notify.ErrUndeliverable) && ctx.Err() != nil &&
		errors.Is(context.Cause(ctx), context.Canceled) {
		return "not_attempted"
	}
	return result(err)
}

// Mailer counts the deliveries of next under the transport label.
func (m *Metrics) Mailer(transport string, next notify.Mailer) notify.Mailer {
	return countingMailer{next: next, c: &m.emails, transport: transport}
}

// SMSSender counts the deliveries of next under the transport label.
func (m *Metrics) SMSSender(transport string, next notify.SMSSender) notify.SMSSender {
	return countingSMS{next: next, c: &m.sms, transport: transport}
}

type countingMailer struct {
	next      notify.Mailer
	c         *counterVec
	transport string
}

func (c countingMailer) Send(ctx context.Context, e notify.Email) error {
	err := c.next.Send(ctx, e)
	c.c.inc(labelValues{c.transport, mailResult(ctx, err)})
	return err
}

// SendAll keeps next's batching (notify.BatchMailer) and counts each
// message.
func (c countingMailer) SendAll(ctx context.Context, es []notify.Email) []error {
	errs := notify.SendAll(ctx, c.next, es)
	for _, err := range errs {
		c.c.inc(labelValues{c.transport, mailResult(ctx, err)})
	}
	return errs
}

type countingSMS struct {
	next      notify.SMSSender
	c         *counterVec
	transport string
}

func (c countingSMS) SendSMS(ctx context.Context, s notify.SMS) error {
	err := c.next.SendSMS(ctx, s)
	c.c.inc(labelValues{c.transport, result(err)})
	return err
}
