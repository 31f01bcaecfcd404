package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/project"
)

// benchKey is the encryption key of the bench servers (test-only value).
const benchKey = "YmVuY2gta2V5LTMyLWJ5dGVzLWxvbmctZm9yLWxrYiE="

// server is the real handler on loopback with its background loops.
type server struct {
	app    *app.App
	base   string
	srv    *http.Server
	cancel context.CancelFunc
	proj   *project.Created
}

// startServer runs app.New on dsn. Logging is the production JSON handler
// at its default level, writing to nowhere.
func startServer(ctx context.Context, dsn string, tweak func(*config.Config)) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	cfg := config.Defaults()
	cfg.DatabaseURL = dsn
	cfg.BaseURL = "http://" + ln.Addr().String()
	cfg.EncryptionKey = benchKey
	cfg.BreachAPIURL = "off"
	if tweak != nil {
		tweak(&cfg)
	}
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	a, err := app.New(ctx, cfg, app.Options{Logger: log})
	if err != nil {
		ln.Close()
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	a.Start(runCtx)
	srv := &http.Server{Handler: a.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	go srv.Serve(httpapi.Gather(srv, ln))
	s := &server{app: a, base: cfg.BaseURL, srv: srv, cancel: cancel}
	s.proj, err = a.Projects.Create(ctx, project.CreateParams{Name: "Bench", RedirectURLs: []string{cfg.BaseURL + "/"},
		Origins: []string{cfg.BaseURL}})
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *server) close() {
	_ = s.srv.Close()
	s.cancel()
	_ = s.app.Close()
}

var client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// send makes a JSON request (no body when body is nil) with basic auth
// when user is set, and returns the response for the caller to read.
func send(c *http.Client, method, u, user, pass string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	return c.Do(req)
}

// post sends a request of a measured flow and checks that it succeeded
// without decoding the answer: the load generator shares the cores with the
// server, and decoding each login's full session answer into maps cost it
// about a tenth of a millisecond per flow, a twentieth of what the server
// spends, that the figures would otherwise charge to the server.
func post(c *http.Client, u, user, pass string, body any) error {
	res, err := send(c, http.MethodPost, u, user, pass, body)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(res.Body)
		return fmt.Errorf("POST %s: %d %s", u, res.StatusCode, raw)
	}
	_, err = io.Copy(io.Discard, res.Body)
	return err
}

// call POSTs (or GETs when body is nil with method GET) JSON and decodes
// the answer, for the set-up steps that read it; any non-200 is an error.
func call(c *http.Client, method, u, user, pass string, body any) (map[string]any, error) {
	res, err := send(c, method, u, user, pass, body)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	if res.StatusCode != 200 {
		return out, fmt.Errorf("%s %s: %d %s", method, u, res.StatusCode, raw)
	}
	return out, nil
}

// backend calls the backend face with the project secret.
func (s *server) backend(path string, body any) (map[string]any, error) {
	return call(client, http.MethodPost, s.base+path, s.proj.Project.ID, s.proj.Secret, body)
}

// createOrg makes an organization anyone may join by email.
func (s *server) createOrg(slug string) (string, error) {
	out, err := s.backend("/v1/b2b/organizations", map[string]any{"organization_name": slug, "organization_slug": slug,
		"email_jit_provisioning": "ALL_ALLOWED"})
	if err != nil {
		return "", err
	}
	return out["organization"].(map[string]any)["organization_id"].(string), nil
}

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// wrkServer runs wrk against an in-process server and adds its CPU per
// request (the server is this process; wrk is another).
func wrkServer(l load, c int, d time.Duration) (result, error) {
	before := cpuTime()
	r, err := wrk(l, c, d)
	if err != nil {
		return r, err
	}
	if n := r.rps * d.Seconds(); n > 0 {
		r.cpuMsPR = float64(cpuTime()-before) / float64(time.Millisecond) / n
	}
	return r, nil
}

// freshPostgres creates a database on the server named by admin and
// returns its DSN and a function dropping it.
func freshPostgres(ctx context.Context, admin string) (string, func(), error) {
	db, err := sql.Open("pgx", admin)
	if err != nil {
		return "", nil, err
	}
	name := "latchkey_bench_" + strings.ToLower(ids.Token()[:12])
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, name)
	if _, err := db.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		db.Close()
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	u, err := url.Parse(admin)
	if err != nil {
		db.Close()
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() {
		_, _ = db.ExecContext(context.Background(), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
		db.Close()
	}
	return u.String(), drop, nil
}
