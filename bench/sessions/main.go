// Command sessions measures the hot path of every customer request,
// session authentication, on loopback: it starts the real server on an
// embedded SQLite file (or PostgreSQL with -postgres DSN), logs a member in
// through the real email-code flow, then drives both API faces' session
// authenticate with concurrent clients for a fixed time and reports
// throughput and p50/p99 latency.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sync"
	"time"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
)

func main() {
	duration := flag.Duration("duration", 5*time.Second, "measurement time per face")
	workers := flag.Int("concurrency", 16, "concurrent clients")
	pg := flag.String("postgres", "", "PostgreSQL DSN (default: embedded SQLite in a temp dir)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the measurement to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	if err := run(*duration, *workers, *pg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

type target struct {
	base, user, pass string
	client           *http.Client
}

func (t target) post(path string, body any) (map[string]any, error) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, t.base+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth(t.user, t.pass)
	res, err := t.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	if res.StatusCode != 200 {
		return nil, fmt.Errorf("%s: %d %s", path, res.StatusCode, raw)
	}
	return out, nil
}

func run(duration time.Duration, workers int, pg string) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "latchkey-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	cfg := config.Defaults()
	cfg.Dev = true // the dev outbox lets the bench read the login code
	cfg.DatabaseURL = filepath.Join(dir, "bench.db")
	if pg != "" {
		cfg.DatabaseURL = pg
	}
	cfg.BaseURL = "http://" + ln.Addr().String()
	a, err := app.New(ctx, cfg, app.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	defer a.Close()
	srv := &http.Server{Handler: a.Handler()}
	go srv.Serve(httpapi.Gather(srv, ln))
	defer srv.Close()

	p, err := a.Projects.Create(ctx, project.CreateParams{Name: "Bench", RedirectURLs: []string{cfg.BaseURL + "/"}})
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers * 2}}
	backend := target{base: cfg.BaseURL, user: p.Project.ID, pass: p.Secret, client: client}
	org, err := backend.post("/v1/b2b/organizations", map[string]any{"organization_name": "Bench Org", "email_jit_provisioning": "ALL_ALLOWED"})
	if err != nil {
		return err
	}
	orgID := org["organization"].(map[string]any)["organization_id"].(string)
	email := "bench@bench.test"
	if _, err := backend.post("/v1/b2b/otps/email/login_or_signup", map[string]any{"organization_id": orgID, "email_address": email}); err != nil {
		return err
	}
	msgs, err := a.Outbox.List(ctx, email, 1)
	if err != nil || len(msgs) == 0 || len(msgs[0].Codes) == 0 {
		return fmt.Errorf("no login code captured: %v", err)
	}
	auth, err := backend.post("/v1/b2b/otps/email/authenticate", map[string]any{"organization_id": orgID, "email_address": email,
		"code": msgs[0].Codes[0]})
	if err != nil {
		return err
	}
	token := auth["session_token"].(string)

	fmt.Printf("sessions/authenticate on loopback, %s, %d clients, %s per face\n", a.DB.Dialect(), workers, duration)
	sdk := target{base: cfg.BaseURL, user: "", pass: token, client: client}
	tok, err := a.Projects.PublicToken(ctx, p.Project.ID)
	if err != nil {
		return err
	}
	sdk.user = tok
	for _, c := range []struct {
		name string
		t    target
		path string
		body any
	}{
		{"backend POST /v1/b2b/sessions/authenticate", backend, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token}},
		{"sdk     POST /sdk/v1/b2b/sessions/authenticate", sdk, "/sdk/v1/b2b/sessions/authenticate", map[string]any{}},
	} {
		if err := measure(c.name, workers, duration, func() error { _, err := c.t.post(c.path, c.body); return err }); err != nil {
			return err
		}
	}
	return nil
}

func measure(name string, workers int, d time.Duration, call func() error) error {
	var mu sync.Mutex
	var lat []time.Duration
	var firstErr error
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			for time.Now().Before(deadline) {
				start := time.Now()
				if err := call(); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				local = append(local, time.Since(start))
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("%s: %w", name, firstErr)
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[int(float64(len(lat)-1)*p)] }
	fmt.Printf("  %s: %8.0f req/s  p50 %-9s p99 %-9s (%d requests)\n", name, float64(len(lat))/d.Seconds(),
		pct(0.50).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), len(lat))
	return nil
}
