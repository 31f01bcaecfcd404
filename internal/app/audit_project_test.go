package app_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/project"
)

// Audit events are filed under the project whose credentials the face
// accepted, never under one a refused caller named: project ids are not
// secret, so otherwise anyone could fill a project's log (and its lockout
// metric) with forged logins, under real or made-up projects. A wrong
// password behind the right secret is a failed login and is recorded.
func TestAuditFilesOnlyUnderAnAuthenticatedProject(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		body := map[string]any{"organization_id": org, "email_address": "ada@acme.test", "password": "Wrong-Password-Quarry-99"}
		const madeUp = "project-test-00000000-0000-4000-8000-000000000000"
		// Past the secret-failure limit, so the refusals include 429s.
		for range project.SecretFailuresPerIP.Limit + 3 {
			if r := e.Do(http.MethodPost, "/v1/b2b/passwords/authenticate", body, nil, e.Project.Project.ID, "secret-test-guess"); r.Status == 200 {
				t.Fatalf("a wrong secret was accepted: %s", r.Raw)
			}
		}
		e.Do(http.MethodPost, "/v1/b2b/passwords/authenticate", body, nil, madeUp, "x")
		// A bad public token on the SDK face names no project either.
		e.Do(http.MethodPost, "/sdk/v1/b2b/passwords/authenticate", body, nil, "public-token-test-unknown", "public-token-test-unknown")

		// The right secret passes even past the limit (the guard refuses only
		// further failures): its event is the barrier before counting.
		r := e.Do(http.MethodPost, "/v1/b2b/passwords/authenticate", body, nil,
			e.Project.Project.ID, e.Project.Secret)
		apptest.Want(t, r, 401, "unauthorized_credentials")
		// SetPassword's import is a factor change and the fixture's
		// organization an admin change; the logins (and lockouts) are what
		// counts.
		logins := func() []audit.Event {
			evs, err := e.App.Audit.List(context.Background(), audit.Filter{ProjectID: e.Project.Project.ID})
			if err != nil {
				t.Fatal(err)
			}
			return slices.DeleteFunc(evs, func(ev audit.Event) bool { return ev.Type == audit.FactorChange || ev.Type == audit.AdminChange })
		}
		var evs []audit.Event
		for deadline := time.Now().Add(10 * time.Second); len(evs) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			evs = logins()
		}
		if len(evs) != 1 || evs[0].Type != audit.Login || evs[0].Outcome != audit.Failure || evs[0].Details["error_type"] != "unauthorized_credentials" {
			t.Fatalf("audit events %+v, want the one failed login behind the right secret", evs)
		}
		if made, err := e.App.Audit.List(context.Background(), audit.Filter{ProjectID: madeUp}); err != nil || len(made) != 0 {
			t.Fatalf("events under a made-up project: %+v %v", made, err)
		}
		rec := httptest.NewRecorder()
		e.App.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		if m := rec.Body.String(); strings.Contains(m, "latchkey_lockouts_total{") {
			t.Errorf("refused secrets counted as lockouts:\n%s", grepLines(m, "latchkey_lockouts_total"))
		}
	})
}
