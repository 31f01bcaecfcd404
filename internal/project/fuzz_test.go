package project

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest/testkeys"
	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// FuzzBasicAuth sends arbitrary Authorization headers (raw, or Basic with
// arbitrary user and password) to both faces' authentication, behind the
// clean-input check as the server mounts them: nothing panics, a refusal
// is a 4xx in the catalogue's shape, and a request gets through only with
// the project's own public token (SDK) or its id and secret (backend).
func FuzzBasicAuth(f *testing.F) {
	ctx := context.Background()
	db := storetest.SQLite(f)
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	store := NewStore(db, clk, secretbox.NewRandom())
	store.UseKeySource(testkeys.Source)
	p, err := store.Create(ctx, CreateParams{Name: "Fuzz"})
	if err != nil {
		f.Fatal(err)
	}
	r := NewResolver(store, ratelimit.New(db, clk), changefeed.New(db, slog.New(slog.NewTextHandler(io.Discard, nil))))
	var got Caller
	passed := false
	next := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		passed, got = true, CallerFrom(req.Context())
		w.WriteHeader(http.StatusNoContent)
	})
	faces := map[string]http.Handler{
		"sdk":     httpapi.Chain(next, httpapi.WithCleanInput(), r.SDKAuth()),
		"backend": httpapi.Chain(next, httpapi.WithCleanInput(), r.BackendAuth()),
	}
	f.Add("", p.PublicToken, p.PublicToken)
	f.Add("", p.PublicToken, "session-token-test-x")
	f.Add("", p.Project.ID, p.Secret)
	f.Add("", p.Project.ID+"\x00", p.Secret)
	f.Add("Basic !!!", "", "")
	f.Add("Basic "+base64.StdEncoding.EncodeToString([]byte("nocolon")), "", "")
	f.Add("Bearer x", "\xff", ":")
	f.Fuzz(func(t *testing.T, header, user, pass string) {
		clk.Advance(time.Minute) // let the failed-secret window roll, so secrets keep being checked
		if header == "" {
			header = "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
		}
		for face, h := range faces {
			req := httptest.NewRequest(http.MethodPost, "/", nil)
			req.Header["Authorization"] = []string{header}
			rec := httptest.NewRecorder()
			passed, got = false, Caller{}
			h.ServeHTTP(rec, req)
			u, pw, _ := req.BasicAuth()
			if passed {
				ok := face == "sdk" && u == p.PublicToken && got.Project.ID == p.Project.ID &&
					(pw == u && got.SessionToken == "" || pw != u && got.SessionToken == pw)
				ok = ok || face == "backend" && u == p.Project.ID && pw == p.Secret && got.Project.ID == p.Project.ID
				if !ok {
					t.Fatalf("%s face let %q through as %+v", face, header, got)
				}
				continue
			}
			var body struct {
				StatusCode int    `json:"status_code"`
				ErrorType  string `json:"error_type"`
			}
			if rec.Code < 400 || rec.Code > 499 || json.Unmarshal(rec.Body.Bytes(), &body) != nil ||
				body.StatusCode != rec.Code || body.ErrorType == "" {
				t.Fatalf("%s face answered %q with %d %s", face, header, rec.Code, strings.TrimSpace(rec.Body.String()))
			}
		}
	})
}
