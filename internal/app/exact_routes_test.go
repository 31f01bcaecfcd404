package app_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/httpapi"
)

// Every route without wildcards is answered from the exact-route table
// (httpapi.ExactRoutes) as the muxes answer it: the same status, error,
// CORS headers and route label. The muxes' answer is had by spelling the
// path's last letter as an escape, which the mux reads as the letter but
// the table leaves to the mux.
func TestExactRoutesAnswerAsTheMuxes(t *testing.T) {
	e := apptest.New(t, apptest.SQLite(t), nil)
	metricsBefore := scrapeRoutes(e)
	sent := map[string]int{}
	for _, rt := range e.App.RouteTable() {
		method, path, _ := strings.Cut(rt.Pattern, " ")
		if method == "" || strings.ContainsAny(path, "{") || strings.HasSuffix(path, "/") || path == "/metrics" {
			continue
		}
		escaped := path[:len(path)-1] + fmt.Sprintf("%%%02X", path[len(path)-1])
		var answers [2]apptest.Resp
		for i, p := range []string{path, escaped} {
			var body any
			if method != http.MethodGet && method != http.MethodDelete {
				body = `{}`
			}
			user, pass, header := e.Project.Project.ID, e.Project.Secret, http.Header(nil)
			if rt.Face == httpapi.SDK {
				user, pass, header = e.Project.PublicToken, e.Project.PublicToken, http.Header{"Origin": {apptest.Origin}}
			}
			answers[i] = e.Do(method, p, body, header, user, pass)
		}
		fast, muxes := answers[0], answers[1]
		if fast.Status != muxes.Status || fast.ErrType() != muxes.ErrType() {
			t.Errorf("%s: %d %s from the table, %d %s from the muxes", rt.Pattern, fast.Status, fast.ErrType(), muxes.Status, muxes.ErrType())
		}
		for _, h := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Vary", "Content-Type", "Allow"} {
			if fast.Header.Get(h) != muxes.Header.Get(h) {
				t.Errorf("%s: %s %q from the table, %q from the muxes", rt.Pattern, h, fast.Header.Get(h), muxes.Header.Get(h))
			}
		}
		if rt.Face == httpapi.SDK && fast.Header.Get("Access-Control-Allow-Origin") != apptest.Origin {
			t.Errorf("%s: no CORS answer for the project's origin", rt.Pattern)
		}
		sent[fmt.Sprintf("%s %d", rt.Pattern, fast.Status)] += 2
	}
	if len(sent) < 50 {
		t.Fatalf("only %d exact routes were tried", len(sent))
	}
	after := scrapeRoutes(e)
	for key, n := range sent {
		if got := after[key] - metricsBefore[key]; got != n {
			t.Errorf("route label %q counted %d requests, want %d", key, got, n)
		}
	}
}

// scrapeRoutes reads latchkey_http_requests_total by "route status".
func scrapeRoutes(e *apptest.Env) map[string]int {
	e.T.Helper()
	res, err := e.Srv.Client().Get(e.Srv.URL + "/metrics")
	if err != nil {
		e.T.Fatal(err)
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
