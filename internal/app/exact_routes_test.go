package app_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// Every route without wildcards is answered from the exact-route table
// (httpapi.ExactRoutes) as the muxes answer it: the same status, error,
// CORS headers and route label. The muxes' answer is had by spelling the
// path's last letter as an escape, which the mux reads as the letter but
// the table leaves to the mux.
func TestExactRoutesAnswerAsTheMuxes(t *testing.T) {
	e := newEnv(t, storetest.SQLite(t))
	metricsBefore := e.scrapeRoutes()
	sent := map[string]int{}
	for _, rt := range e.app.RouteTable() {
		method, path, _ := strings.Cut(rt.Pattern, " ")
		if method == "" || strings.ContainsAny(path, "{") || strings.HasSuffix(path, "/") || path == "/metrics" {
			continue
		}
		escaped := path[:len(path)-1] + fmt.Sprintf("%%%02X", path[len(path)-1])
		var answers [2]resp
		for i, p := range []string{path, escaped} {
			var body any
			if method != http.MethodGet && method != http.MethodDelete {
				body = `{}`
			}
			user, pass, header := e.proj.Project.ID, e.proj.Secret, http.Header(nil)
			if rt.Face == httpapi.SDK {
				user, pass, header = e.proj.PublicToken, e.proj.PublicToken, http.Header{"Origin": {e.origin}}
			}
			answers[i] = e.do(method, p, body, header, user, pass)
		}
		fast, muxes := answers[0], answers[1]
		if fast.Status != muxes.Status || fast.errType() != muxes.errType() {
			t.Errorf("%s: %d %s from the table, %d %s from the muxes", rt.Pattern, fast.Status, fast.errType(), muxes.Status, muxes.errType())
		}
		for _, h := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Vary", "Content-Type", "Allow"} {
			if fast.Header.Get(h) != muxes.Header.Get(h) {
				t.Errorf("%s: %s %q from the table, %q from the muxes", rt.Pattern, h, fast.Header.Get(h), muxes.Header.Get(h))
			}
		}
		if rt.Face == httpapi.SDK && fast.Header.Get("Access-Control-Allow-Origin") != e.origin {
			t.Errorf("%s: no CORS answer for the project's origin", rt.Pattern)
		}
		sent[fmt.Sprintf("%s %d", rt.Pattern, fast.Status)] += 2
	}
	if len(sent) < 50 {
		t.Fatalf("only %d exact routes were tried", len(sent))
	}
	after := e.scrapeRoutes()
	for key, n := range sent {
		if got := after[key] - metricsBefore[key]; got != n {
			t.Errorf("route label %q counted %d requests, want %d", key, got, n)
		}
	}
}

// scrapeRoutes reads latchkey_http_requests_total by "route status".
func (e *env) scrapeRoutes() map[string]int {
	e.t.Helper()
	res, err := e.srv.Client().Get(e.srv.URL + "/metrics")
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := map[string]int{}
	for _, line := range strings.Split(string(raw), "\n") {
		rest, ok := strings.CutPrefix(line, "latchkey_http_requests_total{")
		if !ok {
			continue
		}
		var route, status string
		var n int
		labels, value, _ := strings.Cut(rest, "} ")
		for _, l := range strings.Split(labels, ",") {
			k, v, _ := strings.Cut(l, "=")
			switch k {
			case "route":
				route = strings.Trim(v, `"`)
			case "status":
				status = strings.Trim(v, `"`)
			}
		}
		fmt.Sscan(value, &n)
		out[route+" "+status] = n
	}
	return out
}
