package app_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/store"
)

// A login whose client hangs up while it waits (here on SQLite's writer,
// held by the test) is recorded as abandoned: not as a lockout, as the
// too_many_requests of an abandoned wait for a hashing slot was, nor as a
// server error, and the request metrics count it as 499.
func TestAnAbandonedLoginIsNeitherALockoutNorAServerError(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.SQLite(t), nil)
	org := e.CreateOrg("acme", "NOT_ALLOWED", nil)

	held, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = e.App.DB.Tx(context.Background(), func(store.Querier) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Once the whole request is on the wire the server serves it; the
	// login then waits for the writer until the client is gone.
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
		go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	}})
	body := `{"organization_id":"` + org + `","email_address":"ada@acme.test","password":"correct horse battery staple"}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.Srv.URL+"/v1/b2b/passwords/authenticate", strings.NewReader(body))
	req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(e.Project.Project.ID+":"+e.Project.Secret)))
	req.Header.Set("Content-Type", "application/json")
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
		t.Fatalf("answered %d with the writer held", res.StatusCode)
	}
	// The audit event waits for the writer too.
	time.Sleep(50 * time.Millisecond)
	close(release)

	var evs []audit.Event
	for deadline := time.Now().Add(10 * time.Second); len(evs) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var err error
		// Logins only: the fixture's organization is an admin_change.
		if evs, err = e.App.Audit.List(context.Background(), audit.Filter{ProjectID: e.Project.Project.ID, Type: audit.Login}); err != nil {
			t.Fatal(err)
		}
	}
	if len(evs) != 1 || evs[0].Type != audit.Login || evs[0].Outcome != audit.Failure || evs[0].Details["abandoned_by_client"] != true {
		t.Fatalf("audit events %+v, want one abandoned login", evs)
	}
	// The request is counted when its handler returns, which may be after
	// the audit event is visible: wait for the count (the lockout and 500
	// checks below hold at any moment).
	var m string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		rec := httptest.NewRecorder()
		e.App.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		m = rec.Body.String()
		if strings.Contains(m, `route="POST /v1/b2b/passwords/authenticate",status="499"`) || time.Now().After(deadline) {
			break
		}
	}
	if strings.Contains(m, "latchkey_lockouts_total{") || strings.Contains(m, `status="500"`) ||
		!strings.Contains(m, `route="POST /v1/b2b/passwords/authenticate",status="499"`) {
		t.Errorf("metrics:\n%s", grepLines(m, "latchkey_lockouts_total", "latchkey_http_requests_total"))
	}
}

// grepLines keeps the lines of s that start with one of prefixes.
func grepLines(s string, prefixes ...string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				out = append(out, l)
			}
		}
	}
	return strings.Join(out, "\n")
}
