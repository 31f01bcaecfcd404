package app_test

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// env is one running server on a real database, with a project whose
// redirect URL and origin belong to a fictional customer app.
type env struct {
	t      *testing.T
	app    *app.App
	srv    *httptest.Server
	clock  *clock.Fake
	proj   *project.Created
	origin string
	page   string
}

const testOrigin = "http://app.customer.test"

// eachEnv runs fn against a fresh server on every engine.
func eachEnv(t *testing.T, fn func(t *testing.T, e *env)) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		fn(t, newEnv(t, db))
	})
}

func newEnv(t *testing.T, db *store.DB) *env { return newEnvWith(t, db, nil) }

// newEnvWith is newEnv with a chance to adjust the configuration (a test's
// own breach API, for example) before the app is built.
func newEnvWith(t *testing.T, db *store.DB, tweak func(*config.Config)) *env {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	cfg := config.Defaults()
	cfg.Dev = true
	cfg.BodyLimit = 64 << 10
	// Tiny argon2 cost and no outside breach API: tests run in parallel on
	// two cores, and a test that needs the API starts its own fake.
	cfg.Argon2MemoryKiB, cfg.Argon2Iterations, cfg.Argon2Parallelism = 64, 1, 1
	cfg.BreachAPIURL = "off"
	if tweak != nil {
		tweak(&cfg)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	widget := fstest.MapFS{"latchkey.js": {Data: []byte("window.Latchkey={};")}}
	a, err := app.NewWithDB(context.Background(), cfg, db, app.Options{Clock: clk, Logger: log, Widget: widget})
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

func (e *env) newProject(name string) *project.Created {
	e.t.Helper()
	p, err := e.app.Projects.Create(context.Background(), project.CreateParams{Name: name,
		RedirectURLs: []string{e.page}, Origins: []string{e.origin}})
	if err != nil {
		e.t.Fatalf("create project: %v", err)
	}
	return p
}

// resp is a decoded response.
type resp struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// data returns the SDK envelope's payload.
func (r resp) data() map[string]any {
	d, _ := r.Body["data"].(map[string]any)
	return d
}

func (r resp) errType() string { s, _ := r.Body["error_type"].(string); return s }

func (e *env) do(method, path string, body any, header http.Header, user, pass string) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case io.Reader:
		rd = b // of unknown length: sent chunked
	default:
		buf, _ := json.Marshal(b)
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	apptest.CheckSDKAnswer(e.t, method, req.URL.Path, res.StatusCode, raw)
	out := resp{Status: res.StatusCode, Header: res.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

// sdk calls the SDK face as the widget does, from the customer's origin.
func (e *env) sdk(path string, body any, sessionToken string) resp {
	e.t.Helper()
	pass := sessionToken
	if pass == "" {
		pass = e.proj.PublicToken
	}
	return e.do(http.MethodPost, "/sdk/v1"+path, body, http.Header{"Origin": {e.origin}}, e.proj.PublicToken, pass)
}

// backend calls the backend face with the project secret.
func (e *env) backend(method, path string, body any) resp {
	e.t.Helper()
	return e.do(method, path, body, nil, e.proj.Project.ID, e.proj.Secret)
}

// createOrg makes an organization through the backend API.
func (e *env) createOrg(slug, jit string, domains ...string) string {
	e.t.Helper()
	if domains == nil {
		domains = []string{}
	}
	r := e.backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": strings.ToUpper(slug[:1]) + slug[1:],
		"organization_slug": slug, "email_jit_provisioning": jit, "email_allowed_domains": domains})
	if r.Status != 200 {
		e.t.Fatalf("create org: %d %s", r.Status, r.Raw)
	}
	return r.Body["organization"].(map[string]any)["organization_id"].(string)
}

func (e *env) createMember(orgID, email string) string {
	e.t.Helper()
	r := e.backend(http.MethodPost, "/v1/b2b/organizations/"+orgID+"/members", map[string]any{"email_address": email})
	if r.Status != 200 {
		e.t.Fatalf("create member: %d %s", r.Status, r.Raw)
	}
	return r.Body["member_id"].(string)
}

// lastMail returns the newest captured message to a recipient.
func (e *env) lastMail(to string) (links, codes []string) {
	e.t.Helper()
	msgs, err := e.app.Outbox.List(context.Background(), to, 1)
	if err != nil || len(msgs) == 0 {
		e.t.Fatalf("no mail to %s: %v", to, err)
	}
	return msgs[0].Links, msgs[0].Codes
}

func want(t *testing.T, r resp, status int, errType string) {
	t.Helper()
	if r.Status != status || r.errType() != errType {
		t.Fatalf("got %d %q, want %d %q: %s", r.Status, r.errType(), status, errType, r.Raw)
	}
}
