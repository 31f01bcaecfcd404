// Package apptest runs the real, fully wired Latchkey handler on a real
// database for HTTP tests that live beside the package they test (package
// foo_test imports apptest, which imports app, which imports foo). Every
// suite runs on SQLite and, when LATCHKEY_TEST_POSTGRES_DSN is set, on
// PostgreSQL. The flows_*.go files hold the steps many tests take (log in
// by code, link or password, pass MFA, read a member), so that a method's
// own tests and the cross-cutting ones in internal/app drive them alike;
// links.go reads the one-time token of a mailed or redirected link.
package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest/testkeys"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/outbound"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
	"github.com/latchkey/latchkey/internal/syncbuf"
)

// Origin is the fictional customer app's browser origin; Page is its
// registered redirect URL.
const (
	Origin = "http://app.customer.test"
	Page   = Origin + "/login"
)

// TestEncryptionKey is the fixed LATCHKEY_ENCRYPTION_KEY of test servers.
const TestEncryptionKey = "dGVzdC1rZXktMzItYnl0ZXMtbG9uZy1mb3ItbGF0Y2g="

// Env is one running server on a real database, with a project whose
// redirect URL and origin belong to a fictional customer app.
type Env struct {
	// T is the test's T; nil when a benchmark made the Env (B is set then).
	T       *testing.T
	B       *testing.B
	App     *app.App
	Srv     *httptest.Server
	Clock   *clock.Fake
	Project *project.Created
	// Jar keeps the cookies the server sets, as the test's one browser
	// does (the OAuth state binding): every request through Do carries
	// them. Browser gives a test a second browser.
	Jar http.CookieJar

	logs    *syncbuf.Buffer
	secrets *secretSet // what the log must not hold (secrets.go)
}

// maxLogBytes bounds what a long test keeps of the server's log: the
// lines past it are dropped.
const maxLogBytes = 8 << 20

// Logs returns what the server has logged so far (slog's text format,
// one record a line), for tests of what reaches the log.
func (e *Env) Logs() string { return e.logs.String() }

// Schema is the database every test server starts on: the store's and
// every module's migrations and the change-feed triggers (app.MigrateDB),
// migrated once per test process and engine (storetest.Kind), so that
// New's own app.MigrateDB finds nothing to apply.
var Schema = &storetest.Kind{Name: "app", Migrate: app.MigrateDB}

// SQLite returns a new SQLite database with Schema, for New.
func SQLite(t testing.TB) *store.DB { return Schema.SQLite(t) }

// Postgres returns a new PostgreSQL database with Schema, for New.
func Postgres(t testing.TB) *store.DB { return Schema.Postgres(t) }

// Each runs fn against a fresh server on every engine.
func Each(t *testing.T, fn func(t *testing.T, e *Env)) {
	Schema.Each(t, func(t *testing.T, db *store.DB) { fn(t, New(t, db, nil)) })
}

// EachWith is Each with a chance to adjust the configuration first.
func EachWith(t *testing.T, tweak func(*config.Config), fn func(t *testing.T, e *Env)) {
	Schema.Each(t, func(t *testing.T, db *store.DB) { fn(t, New(t, db, tweak)) })
}

// EachPair runs fn against two servers on one database (two processes:
// separate connection pools and caches), on every engine. Both serve the
// same project, e1's; both run their background loops (App.Start).
func EachPair(t *testing.T, fn func(t *testing.T, e1, e2 *Env)) {
	Schema.EachPair(t, func(t *testing.T, a, b *store.DB) {
		e1, e2 := New(t, a, nil), New(t, b, nil)
		e2.Project = e1.Project
		// One set for both: a secret one server handed out must stay out
		// of the other's log too.
		e1.secrets.merge(e2.secrets)
		e2.secrets = e1.secrets
		for _, e := range []*Env{e1, e2} {
			ctx, cancel := context.WithCancel(context.Background())
			e.App.Start(ctx)
			t.Cleanup(func() { cancel(); _ = e.App.Close() })
		}
		fn(t, e1, e2)
	})
}

// New starts the real handler on db. Tests get a tiny argon2 cost and no
// outside breach API: they run in parallel on two cores, and a test that
// needs an outside service starts its own local one.
func New(t testing.TB, db *store.DB, tweak func(*config.Config)) *Env {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	cfg := config.Defaults()
	cfg.Dev = true
	cfg.BodyLimit = 64 << 10
	cfg.Argon2MemoryKiB, cfg.Argon2Iterations, cfg.Argon2Parallelism = 64, 1, 1
	cfg.BreachAPIURL = "off"
	cfg.EncryptionKey = TestEncryptionKey
	// Tests' identity providers are httptest servers on 127.0.0.1; a test
	// of the guard itself empties this in its tweak.
	cfg.SSOAllowedNetworks = outbound.Loopback
	// The server's own URL is known only once it listens; handlers read
	// a.Config.BaseURL per request, so it is set right after.
	if tweak != nil {
		tweak(&cfg)
	}
	// Benchmarks log to nowhere; tests keep the log (Logs).
	sink := &syncbuf.Buffer{Max: maxLogBytes}
	var out io.Writer = sink
	if _, bench := t.(*testing.B); bench {
		out = io.Discard
	}
	// Debug, the most an operator can turn on (LATCHKEY_LOG_LEVEL): the
	// log check at the test's end then covers every line the server can
	// write, successful requests' included.
	log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	widget := fstest.MapFS{"latchkey.js": {Data: []byte("window.Latchkey={};")}}
	a, err := app.NewWithDB(context.Background(), cfg, db, app.Options{Clock: clk, Logger: log, Widget: widget,
		RSAKeys: testkeys.Source})
	if err != nil {
		t.Fatalf("apptest: app: %v", err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	a.Config.BaseURL = srv.URL
	e := &Env{App: a, Srv: srv, Clock: clk, Jar: newJar(), logs: sink, secrets: newSecretSet()}
	switch t := t.(type) {
	case *testing.T:
		e.T = t
		// Registered last, so it runs first: before the server and the
		// database close.
		defer t.Cleanup(e.checkLogs)
	case *testing.B:
		e.B = t
	}
	e.Project = e.NewProject("Customer App")
	return e
}

// newJar is an empty cookie jar.
func newJar() http.CookieJar {
	jar, err := cookiejar.New(nil)
	if err != nil {
		panic(err) // only options could fail it, and there are none
	}
	return jar
}

// Browser returns e as seen from another browser: the same server and
// project, with a cookie jar of its own.
func (e *Env) Browser() *Env {
	other := *e
	other.Jar = newJar()
	return &other
}

// tb is the test or benchmark that owns e.
func (e *Env) tb() testing.TB {
	if e.T != nil {
		return e.T
	}
	return e.B
}

// NewProject creates a project with the customer app's redirect URL and
// origin.
func (e *Env) NewProject(name string) *project.Created {
	e.tb().Helper()
	p, err := e.App.Projects.Create(context.Background(), project.CreateParams{Name: name,
		RedirectURLs: []string{Page}, Origins: []string{Origin}})
	if err != nil {
		e.tb().Fatalf("apptest: create project: %v", err)
	}
	e.secrets.markPublic(p.PublicToken)
	e.secrets.add("project secret", p.Secret)
	e.secrets.addProject(p.Project.ID)
	return p
}

// Resp is a decoded response.
type Resp struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// Data returns the SDK envelope's payload.
func (r Resp) Data() map[string]any {
	d, _ := r.Body["data"].(map[string]any)
	return d
}

// ErrType is the error_type of an error answer.
func (r Resp) ErrType() string { s, _ := r.Body["error_type"].(string); return s }

// Do sends one request; body is nil, a raw string, a reader (sent chunked:
// no length is known up front) or a value to marshal. Redirects are not
// followed, so browser routes can be checked hop by hop; cookies are kept
// (Jar), as the browser that follows them would.
func (e *Env) Do(method, path string, body any, header http.Header, user, pass string) Resp {
	e.tb().Helper()
	if e.Project != nil {
		// EachPair's second server serves the first's project.
		e.secrets.markPublic(e.Project.PublicToken)
	}
	var rd io.Reader
	var sent bytes.Buffer // a streamed body, recorded once sent
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
		e.secrets.addJSON([]byte(b))
	case io.Reader:
		rd = io.TeeReader(b, &sent)
		defer func() { e.secrets.addJSON(sent.Bytes()) }()
	default:
		buf, _ := json.Marshal(b)
		rd = bytes.NewReader(buf)
		e.secrets.addJSON(buf)
	}
	url := path
	if strings.HasPrefix(path, "/") {
		url = e.Srv.URL + path
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		e.tb().Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	e.secrets.addHeader(req.Header)
	e.secrets.addURL(req.URL.String())
	client := *e.Srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	client.Jar = e.Jar
	res, err := client.Do(req)
	if err != nil {
		e.tb().Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	e.secrets.addHeader(res.Header)
	e.secrets.addJSON(raw)
	CheckAnswer(e.tb(), method, req.URL.Path, res.StatusCode, raw)
	out := Resp{Status: res.StatusCode, Header: res.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

// SDK calls the SDK face as the widget does, from the customer's origin,
// with the session token (or the public token twice when it is "").
func (e *Env) SDK(method, path string, body any, sessionToken string) Resp {
	e.tb().Helper()
	pass := sessionToken
	if pass == "" {
		pass = e.Project.PublicToken
	}
	return e.Do(method, "/sdk/v1"+path, body, http.Header{"Origin": {Origin}}, e.Project.PublicToken, pass)
}

// Backend calls the backend face with the project secret.
func (e *Env) Backend(method, path string, body any) Resp {
	e.tb().Helper()
	return e.Do(method, path, body, nil, e.Project.Project.ID, e.Project.Secret)
}

// BackendAs calls the backend face with the project secret on behalf of a
// member: header names the member session header (X-Stytch-Member-Session
// or X-Stytch-Member-SessionJWT), value is the token or JWT.
func (e *Env) BackendAs(method, path string, body any, header, value string) Resp {
	e.tb().Helper()
	return e.Do(method, path, body, http.Header{header: {value}}, e.Project.Project.ID, e.Project.Secret)
}

// Get fetches a public (browser) route without credentials.
func (e *Env) Get(path string) Resp {
	e.tb().Helper()
	return e.Do(http.MethodGet, path, nil, nil, "", "")
}

// CreateOrg makes an organization through the backend API; fields
// override or extend the defaults (name from the slug, email JIT jit,
// email invites ALL_ALLOWED). The invites are explicit because a create
// that names authentication settings otherwise gets NOT_ALLOWED.
func (e *Env) CreateOrg(slug, jit string, fields map[string]any) string {
	e.tb().Helper()
	body := map[string]any{"organization_name": strings.ToUpper(slug[:1]) + slug[1:],
		"organization_slug": slug, "email_jit_provisioning": jit, "email_allowed_domains": []string{},
		"email_invites": "ALL_ALLOWED"}
	for k, v := range fields {
		body[k] = v
	}
	r := e.Backend(http.MethodPost, "/v1/b2b/organizations", body)
	if r.Status != 200 {
		e.tb().Fatalf("apptest: create org: %d %s", r.Status, r.Raw)
	}
	return r.Body["organization"].(map[string]any)["organization_id"].(string)
}

// CreateAdmin creates a member of orgID and makes them an admin through
// the backend, which must succeed.
func (e *Env) CreateAdmin(orgID, email string) string {
	e.tb().Helper()
	id := e.CreateMember(orgID, email)
	if r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+orgID+"/members/"+id, map[string]any{"is_admin": true}); r.Status != 200 {
		e.tb().Fatalf("apptest: make %s an admin: %d %s", email, r.Status, r.Raw)
	}
	return id
}

// CreateMember adds an active member through the backend API.
func (e *Env) CreateMember(orgID, email string) string {
	e.tb().Helper()
	r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+orgID+"/members", map[string]any{"email_address": email})
	if r.Status != 200 {
		e.tb().Fatalf("apptest: create member: %d %s", r.Status, r.Raw)
	}
	return r.Body["member_id"].(string)
}

// CreateVerifiedMember is CreateMember for a member whose address is
// verified, as after their first login, without one (no email sent, no
// send limit spent): the store's own MarkEmailVerified, as a login runs it.
func (e *Env) CreateVerifiedMember(orgID, email string) string {
	e.tb().Helper()
	id := e.CreateMember(orgID, email)
	ctx := e.tb().Context()
	err := e.App.DB.Tx(ctx, func(q store.Querier) error {
		m, err := e.App.Orgs.Member(ctx, q, e.Project.Project.ID, id)
		if err != nil {
			return err
		}
		_, err = e.App.Orgs.MarkEmailVerified(ctx, q, m)
		return err
	})
	if err != nil {
		e.tb().Fatalf("apptest: verify member: %v", err)
	}
	return id
}

// LastMail returns the links and codes of the newest captured message to a
// recipient.
func (e *Env) LastMail(to string) (links, codes []string) {
	e.tb().Helper()
	msgs, err := e.App.Outbox.List(context.Background(), to, 1)
	if err != nil || len(msgs) == 0 {
		e.tb().Fatalf("apptest: no mail to %s: %v", to, err)
	}
	return msgs[0].Links, msgs[0].Codes
}

// Want fails unless r has the status and error type ("" for success).
func Want(t *testing.T, r Resp, status int, errType string) {
	t.Helper()
	if r.Status != status || r.ErrType() != errType {
		t.Fatalf("got %d %q, want %d %q: %s", r.Status, r.ErrType(), status, errType, r.Raw)
	}
}
