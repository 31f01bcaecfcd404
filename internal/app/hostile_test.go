package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/syncbuf"
)

// TestHostileInputCorpus sends thousands of hostile requests, generated
// from the route table, to every route: malformed and deeply nested JSON,
// wrong types and nulls, huge, NUL-bearing, invalid-UTF-8 and exotic
// unicode strings, wrong content types, missing and forged credentials,
// and traversal in path parameters and queries. No answer may be a 5xx
// (a panic is one), and every JSON error answer is in the catalogue's
// shape: the API faces always answer JSON, browser routes may answer HTML
// or redirects, and the OAuth 2.0 protocol endpoints (and the dev-mode
// mocks) may use the RFC 6749 error shape instead. It runs on SQLite, to
// stay fast; LATCHKEY_HOSTILE_POSTGRES=1 runs it on PostgreSQL, which
// refuses NUL and invalid UTF-8 and so shows where the edge lets them in.
func TestHostileInputCorpus(t *testing.T) {
	db := apptest.SQLite(t)
	if os.Getenv("LATCHKEY_HOSTILE_POSTGRES") != "" {
		// PostgreSQL refuses what SQLite stores (NUL, invalid UTF-8), so
		// input-handling defects show as 500s there first; run it there
		// when changing the edge (needs LATCHKEY_TEST_POSTGRES_DSN).
		db = apptest.Postgres(t)
	}
	e := apptest.New(t, db, nil)
	logs := &syncbuf.Buffer{}
	e.App.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	e.App.Limiter.SetSleep(func(context.Context, time.Duration) error { return nil })
	// Re-mount on the capturing logger.
	e.Srv.Config.Handler = e.App.Handler()

	fields, err := requestFields()
	if err != nil {
		t.Fatalf("read field names: %v", err)
	}
	other := e.NewProject("Other App")
	f := &fixtures{publicToken: e.Project.PublicToken, projectID: e.Project.Project.ID, secret: e.Project.Secret,
		otherPublicToken: other.PublicToken, otherProject: other.Project.ID, otherSecret: other.Secret,
		origin: apptest.Origin, page: apptest.Page}
	fresh := 0
	ensure := func() {
		if f.session != "" {
			r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": f.session})
			if r.Status == 200 {
				return
			}
		}
		// Some route revoked or deleted it. Start over an hour later, so
		// the sends' rate limits have reset.
		fresh++
		e.Clock.Advance(time.Hour)
		f.email = fmt.Sprintf("ada%d@acme.test", fresh)
		f.org = e.CreateOrg(fmt.Sprintf("acme-%d", fresh), "ALL_ALLOWED", nil)
		f.session, f.jwt, f.member = e.Login(f.org, f.email)
	}

	// LATCHKEY_HOSTILE_FULL=1 sends every variant to every route (about
	// 24,000 requests, a few minutes); the default samples them (about 7,000).
	full := os.Getenv("LATCHKEY_HOSTILE_FULL") != ""
	rng := rand.New(rand.NewPCG(9, 2026))
	classify := newRouteClassifier(e.App.RouteTable())
	stats := corpusStats{byRoute: map[string]int{}, answers: map[string]int{}}
	for _, rt := range e.App.RouteTable() {
		e.Clock.Advance(7 * time.Second) // let per-minute windows roll over now and then
		ensure()
		for _, req := range generate(rt, f, fields, rng, full) {
			stats.sent++
			stats.byRoute[rt.Pattern]++
			answer, problem := send(t, e, classify, req)
			stats.answers[answer]++
			if problem != "" {
				stats.fail(req, problem)
			}
		}
	}
	if l := logs.String(); strings.Contains(l, "panic") {
		t.Errorf("the server logged a panic:\n%s", firstLines(l, "panic", 20))
	}
	if stats.sent < 2000 {
		t.Errorf("the corpus has %d requests, want at least 2000", stats.sent)
	}
	for _, rt := range e.App.RouteTable() {
		if stats.byRoute[rt.Pattern] == 0 {
			t.Errorf("no hostile request reached %s", rt.Pattern)
		}
	}
	stats.report(t, logs.String())
}

// corpusStats tallies what was sent and what failed.
type corpusStats struct {
	sent     int
	byRoute  map[string]int
	answers  map[string]int // "status error_type": how deep the corpus got
	failures []string
	counts   map[string]int
}

func (s *corpusStats) fail(req hostileReq, problem string) {
	if s.counts == nil {
		s.counts = map[string]int{}
	}
	key := req.route.Pattern + ": " + strings.SplitN(problem, ":", 2)[0]
	s.counts[key]++
	if s.counts[key] <= 2 {
		s.failures = append(s.failures, fmt.Sprintf("%s %s%s [%s]: %s", req.method, trunc(req.path, 120),
			trunc(req.query, 60), req.label, problem))
	}
}

func (s *corpusStats) report(t *testing.T, logs string) {
	t.Helper()
	t.Logf("hostile corpus: %d requests over %d routes", s.sent, len(s.byRoute))
	kinds := slices.Collect(maps.Keys(s.answers))
	slices.SortFunc(kinds, func(a, b string) int { return s.answers[b] - s.answers[a] })
	for _, k := range kinds[:min(len(kinds), 25)] {
		t.Logf("  %5d  %s", s.answers[k], k)
	}
	if len(s.failures) == 0 {
		return
	}
	total := 0
	for _, n := range s.counts {
		total += n
	}
	// A 5xx names its request id; the log line with it has the cause.
	rid := regexp.MustCompile(`request-id-test-[0-9a-f-]+`)
	for i, f := range s.failures {
		if id := rid.FindString(f); id != "" && strings.HasPrefix(strings.SplitN(f, "]: ", 2)[1], "5xx") {
			s.failures[i] += "\n    log: " + firstLines(logs, id, 1)
		}
	}
	t.Errorf("%d hostile requests got a bad answer (first of each kind):\n%s", total, strings.Join(s.failures, "\n"))
}

// generate builds the corpus for one route.
func generate(rt app.RouteInfo, f *fixtures, fields []string, rng *rand.Rand, full bool) []hostileReq {
	method, pattern, _ := strings.Cut(rt.Pattern, " ")
	params := regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(pattern, -1)
	pathWith := func(replace string, value string) string {
		return regexp.MustCompile(`\{([^}]+)\}`).ReplaceAllStringFunc(pattern, func(m string) string {
			name := strings.Trim(m, "{}")
			if name == replace {
				return value
			}
			return f.pathValue(name)
		})
	}
	valid := pathWith("", "")
	creds := f.credentials(rt.Face, rt.Raw)
	deep := creds[0]
	base := f.baseline()
	sink := func(raw string) []byte { return kitchenSink(fields, raw) }
	mixed := withField(base, "name", jsonString(pick(rng, hostileStrings).v))

	var out, group []hostileReq
	add := func(path, query, label string, cred credential, body []byte, ctype string) {
		h := http.Header{}
		cred.apply(h)
		if ctype != "-" {
			h.Set("Content-Type", ctype)
		}
		group = append(group, hostileReq{route: rt, method: method, path: path, query: query, header: h, body: body,
			label: cred.name + "/" + label})
	}
	// keep ends a group of variants: all of them in a full run, else n
	// chosen at random (each variant still reaches many routes).
	keep := func(n int) {
		if !full && len(group) > n {
			rng.Shuffle(len(group), func(i, j int) { group[i], group[j] = group[j], group[i] })
			group = group[:n]
		}
		out, group = append(out, group...), nil
	}
	const ctJSON = "application/json"

	// Every credential, with a body that is valid apart from one field.
	add(valid, "", "mixed-body", deep, mixed, ctJSON)
	keep(1)
	for _, c := range creds[1:] {
		add(valid, "", "mixed-body", c, mixed, ctJSON)
	}
	keep(4)
	// Every malformed body.
	for _, b := range malformedBodies() {
		add(valid, "", "malformed:"+b.name, deep, []byte(b.body), ctJSON)
	}
	keep(5)
	// Every field at once, with each wrong type and each hostile string.
	for _, v := range hostileValues {
		add(valid, "", "sink-value:"+v.name, deep, sink(v.raw), ctJSON)
	}
	keep(3)
	for _, s := range hostileStrings {
		if s.name == "huge" { // every field huge would only hit the body limit
			add(valid, "", "one-huge", deep, withField(base, pick(rng, fields), jsonString(s.v)), ctJSON)
			continue
		}
		add(valid, "", "sink-string:"+s.name, deep, sink(jsonString(s.v)), ctJSON)
	}
	keep(4)
	// One hostile field on a valid baseline, where validation goes deepest.
	keys := slices.Sorted(mapKeys(base))
	for range 12 {
		field := pick(rng, keys)
		if rng.IntN(3) == 0 {
			field = pick(rng, fields)
		}
		var raw, name string
		if rng.IntN(2) == 0 {
			s := pick(rng, hostileStrings)
			raw, name = jsonString(s.v), s.name
		} else {
			v := pick(rng, hostileValues)
			raw, name = v.raw, v.name
		}
		add(valid, "", "field:"+field+"="+name, deep, withField(base, field, raw), ctJSON)
	}
	keep(8)
	// Opaque tokens the server decodes itself (search cursors) carry what
	// a decoder could pass on to the database.
	for _, s := range hostileStrings {
		if strings.HasPrefix(s.name, "cursor") || s.name == "nul" || s.name == "invalid-utf8" {
			add(valid, "", "cursor="+s.name, deep, withField(base, "cursor", jsonString(s.v)), ctJSON)
		}
	}
	keep(2)
	// Wrong content types and form bodies.
	for _, ct := range contentTypes {
		add(valid, "", "content-type:"+ct, deep, mixed, ct)
	}
	add(valid, "", "no-content-type", deep, mixed, "-")
	keep(2)
	for _, b := range f.formBodies() {
		add(valid, "", b.name, deep, []byte(b.body), "application/x-www-form-urlencoded")
	}
	keep(1)
	// Hostile queries.
	for _, q := range hostileQueries {
		add(valid, q.q, "query:"+q.name, deep, nil, "-")
	}
	keep(1)
	// Traversal and junk in each path parameter.
	for _, p := range params {
		if p[1] == "$" {
			continue
		}
		for _, v := range hostilePathValues {
			add(pathWith(p[1], v.v), "", "path:"+p[1]+"="+v.name, deep, mixed, ctJSON)
		}
		keep(3)
	}
	return out
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// send issues one request exactly as generated and returns what is wrong
// with the answer, or "".
func send(t *testing.T, e *apptest.Env, classify *routeClassifier, req hostileReq) (answer, problem string) {
	t.Helper()
	hr, err := http.NewRequest(req.method, e.Srv.URL+"/", bytes.NewReader(req.body))
	if err != nil {
		return "", "build request: " + err.Error()
	}
	hr.URL.Opaque = req.path
	hr.URL.RawQuery = req.query
	if len(req.body) == 0 {
		hr.Body, hr.ContentLength = http.NoBody, 0
	}
	for k, v := range req.header {
		hr.Header[k] = v
	}
	res, err := noRedirects.Do(hr)
	if err != nil {
		return "", "transport (a crash or an aborted answer): " + err.Error()
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	apptest.CheckAnswer(t, req.method, strings.SplitN(req.path, "?", 2)[0], res.StatusCode, raw)
	var body struct {
		ErrorType string `json:"error_type"`
		Error     string `json:"error"`
	}
	_ = json.Unmarshal(raw, &body)
	answer = fmt.Sprintf("%d %s%s", res.StatusCode, body.ErrorType, body.Error)
	return answer, checkAnswer(classify.kind(req.method, req.path), res, raw)
}

// noRedirects shows the corpus each answer as sent: a redirect is an
// answer of its own, which API routes must never give.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// answerKind is what a route may answer.
type answerKind int

const (
	kindAPI      answerKind = iota // JSON always; errors in the catalogue's shape
	kindBrowser                    // anything but a 5xx; JSON errors in the catalogue's shape
	kindProtocol                   // like browser, but JSON errors may be RFC 6749's shape
)

func checkAnswer(kind answerKind, res *http.Response, raw []byte) string {
	status := res.StatusCode
	if status >= 500 {
		return fmt.Sprintf("5xx: %d %s", status, trunc(string(raw), 300))
	}
	isJSON := strings.HasPrefix(res.Header.Get("Content-Type"), "application/json")
	if kind == kindAPI && (!isJSON || status < 200 || status > 299 && status < 400) {
		return fmt.Sprintf("non-JSON API answer: %d %q %s", status, res.Header.Get("Content-Type"), trunc(string(raw), 200))
	}
	if !isJSON || status < 400 {
		return ""
	}
	if p := catalogueShape(status, raw); p != "" {
		if kind == kindProtocol && rfc6749Shape(raw) {
			return ""
		}
		return "shape: " + p + ": " + trunc(string(raw), 300)
	}
	return ""
}

// catalogueShape checks an error body against the catalogue: status_code
// equal to the HTTP status, a request id, a type, a message, and the
// type's documentation URL.
func catalogueShape(status int, raw []byte) string {
	var b map[string]any
	if err := json.Unmarshal(raw, &b); err != nil {
		return "not a JSON object"
	}
	code, _ := b["status_code"].(float64)
	rid, _ := b["request_id"].(string)
	typ, _ := b["error_type"].(string)
	msg, msgOK := b["error_message"].(string)
	u, _ := b["error_url"].(string)
	switch {
	case int(code) != status:
		return fmt.Sprintf("status_code %v != %d", b["status_code"], status)
	case rid == "":
		return "no request_id"
	case typ == "":
		return "no error_type"
	case !msgOK || msg == "":
		return "no error_message"
	case u != httpapi.ErrorURLBase+typ:
		return "error_url " + u
	}
	return ""
}

func rfc6749Shape(raw []byte) bool {
	var b map[string]any
	if json.Unmarshal(raw, &b) != nil {
		return false
	}
	code, ok := b["error"].(string)
	return ok && code != ""
}

// routeClassifier finds which route a request lands on, as the server's
// muxes would, to know what it may answer.
type routeClassifier struct {
	mux   *http.ServeMux
	kinds map[string]answerKind
}

func newRouteClassifier(routes []app.RouteInfo) *routeClassifier {
	c := &routeClassifier{mux: http.NewServeMux(), kinds: map[string]answerKind{}}
	for _, rt := range routes {
		c.mux.Handle(rt.Pattern, http.NotFoundHandler())
		_, path, _ := strings.Cut(rt.Pattern, " ")
		switch {
		case strings.Contains(path, "/oauth2/") || strings.Contains(path, "/.well-known/") || strings.HasPrefix(path, "/dev/"):
			c.kinds[rt.Pattern] = kindProtocol
		case rt.Raw || rt.Face == httpapi.Public:
			c.kinds[rt.Pattern] = kindBrowser
		default:
			c.kinds[rt.Pattern] = kindAPI
		}
	}
	return c
}

func (c *routeClassifier) kind(method, path string) answerKind {
	r, err := http.NewRequest(method, "http://latchkey.test/", nil)
	if err != nil {
		return kindAPI
	}
	r.URL.Opaque = ""
	r.URL.Path = path
	r.URL.RawPath = path
	if p, err := url.PathUnescape(path); err == nil {
		r.URL.Path = p
	}
	_, pattern := c.mux.Handler(r)
	if k, ok := c.kinds[pattern]; ok {
		return k
	}
	if strings.HasPrefix(path, "/v1/") || strings.HasPrefix(path, "/sdk/v1/") {
		return kindAPI
	}
	return kindBrowser
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func firstLines(s, needle string, n int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, needle) {
			out = append(out, trunc(l, 400))
			if len(out) == n {
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

func readFile(p string) (string, error) {
	b, err := os.ReadFile(p)
	return string(b), err
}
