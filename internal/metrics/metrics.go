// Package metrics exposes the server's operational counters in the
// Prometheus text format (the official client library) on a private
// registry: HTTP requests by route and status with latency histograms,
// logins by method and result, lockouts, and email and SMS deliveries.
//
// Labels are bounded sets (route patterns, never raw paths; catalogued
// method names), so no request can grow the series count.
package metrics

import (
	"context"
	"maps"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/rsasign"
)

// Metrics holds one server's collectors. Each App has its own registry, so
// tests running many servers in one process do not share counts.
type Metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	logins    *prometheus.CounterVec
	lockouts  *prometheus.CounterVec
	emails    *prometheus.CounterVec
	sms       *prometheus.CounterVec
	auditFail prometheus.Counter

	// series holds each route and status's two request series, looked up
	// once: WithLabelValues hashes the label values and takes the vector's
	// lock on every call, two of them per request, ~0.5 µs of a session
	// check. The map is replaced, never changed, so reads take no lock;
	// routes and statuses are bounded sets, so it stays small.
	series   atomic.Pointer[map[routeStatus]requestSeries]
	seriesMu sync.Mutex // serialises replacements
}

type routeStatus struct {
	route  string
	status int
}

type requestSeries struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

// New returns a fresh set of collectors on a private registry, with the
// Go runtime and process collectors.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "latchkey_http_requests_total",
		Help: "HTTP requests by route pattern and status code."}, []string{"route", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "latchkey_http_request_duration_seconds",
		Help: "HTTP request latency by route pattern.", Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}},
		[]string{"route"})
	m.logins = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "latchkey_logins_total",
		Help: "Authentication attempts by method and result (success or failure)."}, []string{"method", "result"})
	m.lockouts = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "latchkey_lockouts_total",
		Help: "Attempts refused because a lockout or attempt limit was reached, by method."}, []string{"method"})
	m.emails = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "latchkey_emails_total",
		Help: "Email deliveries by transport and result (sent or failed)."}, []string{"transport", "result"})
	m.sms = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "latchkey_sms_total",
		Help: "SMS deliveries by transport and result (sent or failed)."}, []string{"transport", "result"})
	m.auditFail = prometheus.NewCounter(prometheus.CounterOpts{Name: "latchkey_audit_write_failures_total",
		Help: "Audit events that could not be stored."})
	rsaFallbacks := prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "latchkey_rs256_fast_path_fallbacks_total",
		Help: "RS256 signatures of the fast path that failed their check and were made again by crypto/rsa (any is a fault)."},
		func() float64 { return float64(rsasign.Fallbacks()) })
	m.reg.MustRegister(m.requests, m.latency, m.logins, m.lockouts, m.emails, m.sms, m.auditFail, rsaFallbacks,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry is the private registry (for tests and extra collectors).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// ObserveRequest records one HTTP request; route is the mux pattern that
// matched ("unmatched" for none).
func (m *Metrics) ObserveRequest(route string, status int, d time.Duration) {
	s := m.requestSeries(routeStatus{route, status})
	s.count.Inc()
	s.latency.Observe(d.Seconds())
}

func (m *Metrics) requestSeries(k routeStatus) requestSeries {
	if cur := m.series.Load(); cur != nil {
		if s, ok := (*cur)[k]; ok {
			return s
		}
	}
	m.seriesMu.Lock()
	defer m.seriesMu.Unlock()
	next := map[routeStatus]requestSeries{}
	if cur := m.series.Load(); cur != nil {
		if s, ok := (*cur)[k]; ok { // stored while this call waited
			return s
		}
		maps.Copy(next, *cur)
	}
	s := requestSeries{count: m.requests.WithLabelValues(k.route, strconv.Itoa(k.status)),
		latency: m.latency.WithLabelValues(k.route)}
	next[k] = s
	m.series.Store(&next)
	return s
}

// Login records an authentication attempt.
func (m *Metrics) Login(method string, ok bool) {
	result := "failure"
	if ok {
		result = "success"
	}
	m.logins.WithLabelValues(method, result).Inc()
}

// Lockout records an attempt refused by a lockout or attempt limit.
func (m *Metrics) Lockout(method string) { m.lockouts.WithLabelValues(method).Inc() }

// AuditWriteFailed counts an audit event that could not be stored.
func (m *Metrics) AuditWriteFailed() { m.auditFail.Inc() }

func result(err error) string {
	if err != nil {
		return "failed"
	}
	return "sent"
}

// Mailer counts the deliveries of next under the transport label.
func (m *Metrics) Mailer(transport string, next notify.Mailer) notify.Mailer {
	return countingMailer{next: next, c: m.emails, transport: transport}
}

// SMSSender counts the deliveries of next under the transport label.
func (m *Metrics) SMSSender(transport string, next notify.SMSSender) notify.SMSSender {
	return countingSMS{next: next, c: m.sms, transport: transport}
}

type countingMailer struct {
	next      notify.Mailer
	c         *prometheus.CounterVec
	transport string
}

func (c countingMailer) Send(ctx context.Context, e notify.Email) error {
	err := c.next.Send(ctx, e)
	c.c.WithLabelValues(c.transport, result(err)).Inc()
	return err
}

// SendAll keeps next's batching (notify.BatchMailer) and counts each
// message.
func (c countingMailer) SendAll(ctx context.Context, es []notify.Email) []error {
	errs := notify.SendAll(ctx, c.next, es)
	for _, err := range errs {
		c.c.WithLabelValues(c.transport, result(err)).Inc()
	}
	return errs
}

type countingSMS struct {
	next      notify.SMSSender
	c         *prometheus.CounterVec
	transport string
}

func (c countingSMS) SendSMS(ctx context.Context, s notify.SMS) error {
	err := c.next.SendSMS(ctx, s)
	c.c.WithLabelValues(c.transport, result(err)).Inc()
	return err
}
