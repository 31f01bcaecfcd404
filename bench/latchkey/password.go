package main

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/password/pwhash"
)

const benchPassword = "correct horse battery staple 9!"

// owasp is the configured default cost (config.Defaults).
func owasp() pwhash.Params {
	d := config.Defaults()
	return pwhash.Params{MemoryKiB: d.Argon2MemoryKiB, Iterations: d.Argon2Iterations, Parallelism: d.Argon2Parallelism}
}

// hashRate is how many argon2id hashes at the OWASP cost this machine
// computes per second with one goroutine per CPU and nothing else, and the
// process CPU each took (ms): on a shared machine the CPU per hash and per
// login compare more steadily than the rates.
func hashRate(ctx context.Context, d time.Duration) (rate, cpuMs float64, err error) {
	var n atomic.Int64
	before := cpuTime()
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	errs := make(chan error, runtime.NumCPU())
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if _, err := pwhash.Hash(ctx, benchPassword, owasp()); err != nil {
					errs <- err
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, 0, err
	}
	if n.Load() == 0 {
		return 0, 0, fmt.Errorf("no hash finished in %s", d)
	}
	return float64(n.Load()) / d.Seconds(), float64(cpuTime()-before) / float64(time.Millisecond) / float64(n.Load()), nil
}

// passwordFigures: password logins at the OWASP cost against the hash
// alone, measured back to back in one run.
func passwordFigures(ctx context.Context, o options, rep *report, dsn string) error {
	s, err := startServer(ctx, dsn, nil)
	if err != nil {
		return err
	}
	defer s.close()
	hash, err := pwhash.Hash(ctx, benchPassword, owasp())
	if err != nil {
		return err
	}
	org, err := s.createOrg("bench-pw")
	if err != nil {
		return err
	}
	if _, err := s.backend("/v1/b2b/passwords/migrate", map[string]any{"organization_id": org,
		"email_address": "pw@bench.test", "hash": hash, "hash_type": "argon_2id"}); err != nil {
		return err
	}
	// One login first, so a refusal shows its reason.
	if _, err := s.backend("/v1/b2b/passwords/authenticate", map[string]any{"organization_id": org,
		"email_address": "pw@bench.test", "password": benchPassword}); err != nil {
		return err
	}
	l := load{url: s.base + "/v1/b2b/passwords/authenticate", user: s.proj.Project.ID, pass: s.proj.Secret,
		body: fmt.Sprintf(`{"organization_id":%q,"email_address":"pw@bench.test","password":%q}`, org, benchPassword)}
	var hashes, logins, hashCPU, loginCPU []float64
	for range o.runs {
		h, hc, err := hashRate(ctx, o.duration)
		if err != nil {
			return err
		}
		r, err := wrkServer(l, 8, o.duration)
		if err != nil {
			return err
		}
		hashes, logins = append(hashes, h), append(logins, r.rps)
		hashCPU, loginCPU = append(hashCPU, hc), append(loginCPU, r.cpuMsPR)
	}
	h, lg := median(hashes), median(logins)
	rep.add("argon2id hash alone (19 MiB, t=2, p=1), all cores",
		fmt.Sprintf("%.1f hashes/s, %.1f ms CPU/hash", h, median(hashCPU)), "yardstick", nil)
	rep.add("password logins, SQLite", fmt.Sprintf("%.1f logins/s (%.0f%% of the hash alone), %.1f ms CPU/login",
		lg, 100*lg/h, median(loginCPU)), "≥ 90% of the hash alone", ptr(lg >= 0.9*h))
	return nil
}
