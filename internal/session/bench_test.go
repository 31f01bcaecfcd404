package session_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// The hot path of every customer request, through the whole handler chain
// (middleware, project auth, the session check, the answer's encoding) but
// without the network, so that ns/op and allocs/op show what the server
// itself spends. bench/latchkey measures the same under wrk; these catch an
// allocation regression without a load generator:
//
//	go test ./internal/session/ -run '^$' -bench Authenticate -benchmem

// BenchmarkAuthenticate runs on SQLite and, when LATCHKEY_TEST_POSTGRES_DSN
// is set, on PostgreSQL.
func BenchmarkAuthenticate(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchAuthenticate(b, apptest.SQLite(b)) })
	if os.Getenv(storetest.EnvPostgres) != "" {
		b.Run("postgres", func(b *testing.B) { benchAuthenticate(b, apptest.Postgres(b)) })
	}
}

func benchAuthenticate(b *testing.B, db *store.DB) {
	e := apptest.New(b, db, nil)
	ctx, cancel := context.WithCancel(context.Background())
	e.App.Start(ctx)
	b.Cleanup(func() { cancel(); _ = e.App.Close() })
	org := e.CreateOrg("bench", "ALL_ALLOWED", nil)
	token, jwt := e.LoginByEmailOTP(org, "bench@bench.test")
	h := e.App.Handler()
	pid, secret, pub := e.Project.Project.ID, e.Project.Secret, e.Project.PublicToken
	cases := []struct {
		name, path, user, pass, body string
		origin                       bool
	}{
		{"backend_token", "/v1/b2b/sessions/authenticate", pid, secret, `{"session_token":"` + token + `"}`, false},
		{"sdk_token", "/sdk/v1/b2b/sessions/authenticate", pub, token, `{}`, true},
		{"backend_jwt", "/v1/b2b/sessions/authenticate", pid, secret, `{"session_jwt":"` + jwt + `"}`, false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			tmpl, err := http.NewRequest(http.MethodPost, e.Srv.URL+c.path, nil)
			if err != nil {
				b.Fatal(err)
			}
			tmpl.RemoteAddr = "127.0.0.1:40000"
			tmpl.Header.Set("Content-Type", "application/json")
			tmpl.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(c.user+":"+c.pass)))
			if c.origin {
				tmpl.Header.Set("Origin", apptest.Origin)
			}
			tmpl.ContentLength = int64(len(c.body))
			raw := []byte(c.body)
			body := bytes.NewReader(nil)
			w := &discardWriter{h: http.Header{}}
			serve := func() {
				r := *tmpl
				body.Reset(raw)
				r.Body = io.NopCloser(body)
				clear(w.h)
				w.status, w.n = 0, 0
				h.ServeHTTP(w, &r)
				if w.status != http.StatusOK {
					b.Fatalf("status %d", w.status)
				}
			}
			serve() // warm the caches
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				serve()
			}
			b.ReportMetric(float64(w.n), "B/answer")
		})
	}
}

// discardWriter is a ResponseWriter that keeps the status and the answer's
// size only.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header { return w.h }

func (w *discardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += len(p)
	return len(p), nil
}
