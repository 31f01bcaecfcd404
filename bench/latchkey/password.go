package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"runtime/pprof"
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

// slice runs workers goroutines that repeat op for about d, each
// finishing the op it has in flight when d runs out, and returns how many
// ops finished, the time until the last one did (dividing by d alone would
// overstate the rate) and the process CPU they took. Hashes and logins are
// both counted this way, so their ratio compares like with like.
func slice(workers int, d time.Duration, op func() error) (n int64, elapsed, cpu time.Duration, err error) {
	var done atomic.Int64
	before, start := cpuTime(), time.Now()
	deadline := start.Add(d)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if err := op(); err != nil {
					errs <- err
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, 0, 0, err
	}
	return done.Load(), time.Since(start), cpuTime() - before, nil
}

// hashSlice hashes at the OWASP cost with one goroutine per CPU and
// nothing else for about d (see slice).
//
// Its goroutines carry the profiler label phase=hash, so that a
// -cpuprofile of the run tells the hashes alone (-tagfocus phase=hash)
// from the logins' hashes and the rest of their work (-tagignore phase).
func hashSlice(ctx context.Context, d time.Duration) (n int64, elapsed, cpu time.Duration, err error) {
	pprof.Do(ctx, pprof.Labels("phase", "hash"), func(ctx context.Context) {
		n, elapsed, cpu, err = slice(runtime.NumCPU(), d, func() error {
			_, err := pwhash.Hash(ctx, benchPassword, owasp())
			return err
		})
	})
	return n, elapsed, cpu, err
}

// alternate measures the hash alone and the logins of l in one-second
// slices taken in turn, bracketed by hash slices (hash, logins, hash, ...,
// hash), and returns the hash rate, the login rate and each one's CPU per
// operation in ms. argon2 is bound by memory bandwidth, which on a shared
// host its neighbours take and give back from one second to the next;
// slices this short see the same host, so the ratio is the code's, where
// two long phases back to back compared two moments of the host.
func alternate(ctx context.Context, l load, d time.Duration) (hashes, logins, hashCPU, loginCPU float64, err error) {
	slices := max(int(d/time.Second), 1)
	var hashN int64
	var hashT, hashC time.Duration
	var loginN int64
	var loginT, loginC time.Duration
	for i := range 2*slices + 1 {
		if i%2 == 0 {
			n, el, c, err := hashSlice(ctx, time.Second)
			if err != nil {
				return 0, 0, 0, 0, err
			}
			hashN, hashT, hashC = hashN+n, hashT+el, hashC+c
			continue
		}
		n, el, c, err := loginSlice(l, 8, time.Second)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		loginN, loginT, loginC = loginN+n, loginT+el, loginC+c
	}
	if hashN == 0 || loginN == 0 {
		return 0, 0, 0, 0, fmt.Errorf("password: %d hashes and %d logins in %d slices", hashN, loginN, slices)
	}
	ms := float64(time.Millisecond)
	return float64(hashN) / hashT.Seconds(), float64(loginN) / loginT.Seconds(),
		float64(hashC) / ms / float64(hashN), float64(loginC) / ms / float64(loginN), nil
}

// passwordFigures: password logins at the OWASP cost against the hash
// alone, measured in alternating slices in each run (see alternate); the
// ratio reported is the median of the runs' own ratios.
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
	l, err := s.passwordMember("bench-pw", hash)
	if err != nil {
		return err
	}
	if _, _, _, err := loginSlice(l, 8, time.Second); err != nil { // warm-up
		return err
	}
	var hashes, logins, ratios, hashCPU, loginCPU []float64
	for range o.runs {
		h, lg, hc, lc, err := alternate(ctx, l, o.duration)
		if err != nil {
			return err
		}
		hashes, logins, ratios = append(hashes, h), append(logins, lg), append(ratios, lg/h)
		hashCPU, loginCPU = append(hashCPU, hc), append(loginCPU, lc)
	}
	h, lg, ratio := median(hashes), median(logins), median(ratios)
	rep.add("argon2id hash alone (19 MiB, t=2, p=1), all cores",
		fmt.Sprintf("%.1f hashes/s, %.1f ms CPU/hash", h, median(hashCPU)), "yardstick", nil)
	rep.add("password logins, SQLite", fmt.Sprintf("%.1f logins/s (%.0f%% of the hash alone), %.1f ms CPU/login",
		lg, 100*ratio, median(loginCPU)), "≥ 90% of the hash alone", ptr(ratio >= 0.9))
	return nil
}

// passwordMember creates an organization named name with one member whose
// password is benchPassword, stored as hash, logs in once (so that a
// refusal shows its reason before any load), and returns the load of that
// login.
func (s *server) passwordMember(name, hash string) (load, error) {
	org, err := s.createOrg(name)
	if err != nil {
		return load{}, err
	}
	if _, err := s.backend("/v1/b2b/passwords/migrate", map[string]any{"organization_id": org,
		"email_address": "pw@bench.test", "hash": hash, "hash_type": "argon_2id"}); err != nil {
		return load{}, err
	}
	if _, err := s.backend("/v1/b2b/passwords/authenticate", map[string]any{"organization_id": org,
		"email_address": "pw@bench.test", "password": benchPassword}); err != nil {
		return load{}, err
	}
	return load{url: s.base + "/v1/b2b/passwords/authenticate", user: s.proj.Project.ID, pass: s.proj.Secret,
		body: fmt.Sprintf(`{"organization_id":%q,"email_address":"pw@bench.test","password":%q}`, org, benchPassword)}, nil
}

// loginRun is a loginSlice of d as a result, for the growth rows. wrk ran
// them before and left the logins it dropped at its end still waiting for
// a hashing slot, each holding its counted attempt, when the next run
// began: the (email, address) lockout counts attempts in flight, so that
// guesses sent at once cannot pass it together, and now and then an
// eleventh at once was refused and failed the bench.
func loginRun(l load, c int, d time.Duration) (result, error) {
	n, elapsed, cpu, err := loginSlice(l, c, d)
	if err != nil {
		return result{}, err
	}
	return result{rps: float64(n) / elapsed.Seconds(), cpuMsPR: float64(cpu) / float64(time.Millisecond) / float64(n)}, nil
}

// loginSlice runs c clients that post l for about d (see slice); the CPU
// is the server's and the clients'. wrk, used before, stops at d and drops
// what is in flight, which at a few dozen logins a second left out about
// one login in forty, a bias the hash figure does not have.
func loginSlice(l load, c int, d time.Duration) (n int64, elapsed, cpu time.Duration, err error) {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: c}}
	defer client.CloseIdleConnections()
	body := json.RawMessage(l.body)
	return slice(c, d, func() error {
		return post(client, l.url, l.user, l.pass, body)
	})
}
