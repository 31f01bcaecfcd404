package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// timedCheck is a backend session check on e that gives up after limit
// (a request that hangs fails the test instead of the test hanging): the
// status and error type, or an error saying it was still waiting.
func timedCheck(e *apptest.Env, token string, limit time.Duration) (int, string, error) {
	body, _ := json.Marshal(map[string]any{"session_token": token})
	req, _ := http.NewRequest(http.MethodPost, e.Srv.URL+"/v1/b2b/sessions/authenticate", bytes.NewReader(body))
	req.SetBasicAuth(e.Project.Project.ID, e.Project.Secret)
	req.Header.Set("Content-Type", "application/json")
	return timedDo(req, limit)
}

func timedDo(req *http.Request, limit time.Duration) (int, string, error) {
	res, err := (&http.Client{Timeout: limit}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out struct {
		ErrorType string `json:"error_type"`
	}
	_ = json.Unmarshal(raw, &out)
	return res.StatusCode, out.ErrorType, nil
}

// A replica cut off from PostgreSQL by a silent partition (e1, whose
// connections go through a proxy that accepts and reads but never
// answers) ends every request within a couple of seconds with a
// catalogue 500, never the 200 of a session another replica (e2) revoked
// meanwhile, and its /readyz answers 503; once the partition heals it
// answers again, and knows of the revocation. Every request used to queue
// behind a change-feed sync waiting on its socket for as long as the
// kernel retransmits (about 15 minutes), and /readyz with it.
func TestReplicaCutOffFromPostgresFailsFast(t *testing.T) {
	t.Parallel()
	a, b, p := storetest.PairThrough(t)
	e1, e2 := apptest.New(t, a, nil), apptest.New(t, b, nil)
	e2.Project = e1.Project
	for _, e := range []*apptest.Env{e1, e2} {
		ctx, cancel := context.WithCancel(context.Background())
		e.App.Start(ctx)
		t.Cleanup(func() { cancel(); p.Pass(); _ = e.App.Close() })
	}
	org := e1.CreateOrg("acme", "ALL_ALLOWED", nil)
	token, _, _ := e2.Login(org, "ada@acme.test")
	if status, _, err := timedCheck(e1, token, 5*time.Second); err != nil || status != 200 {
		t.Fatalf("check before the partition: %d %v", status, err)
	}

	p.BlackHole()
	apptest.Want(t, e2.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"session_token": token}), 200, "")
	time.Sleep(time.Second) // the promise: a revocation is seen everywhere within it

	const limit = 4 * time.Second // a couple of seconds, and slack for two shared cores
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			start := time.Now()
			status, errType, err := timedCheck(e1, token, limit)
			if err != nil {
				t.Errorf("check on the cut-off replica: %v", err)
				return
			}
			if status != 500 || errType != "internal_server_error" {
				t.Errorf("check on the cut-off replica after %s: %d %q, want 500 internal_server_error", time.Since(start), status, errType)
			}
		})
	}
	wg.Go(func() {
		req, _ := http.NewRequest(http.MethodGet, e1.Srv.URL+"/readyz", nil)
		status, _, err := timedDo(req, limit)
		if err != nil || status != http.StatusServiceUnavailable {
			t.Errorf("/readyz on the cut-off replica: %d %v, want 503", status, err)
		}
	})
	wg.Wait()
	if t.Failed() {
		return
	}

	p.Pass()
	p.Cut() // the connections that sat in the partition are gone, as after one
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, errType, err := timedCheck(e1, token, limit)
		if err == nil && status == 404 && errType == "session_not_found" {
			break
		}
		if err == nil && status == 200 {
			t.Fatal("after the partition the replica answered a session revoked during it")
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica did not recover after the partition: %d %q %v", status, errType, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// App.Close on a replica whose database does not answer returns within
// its flush's bound and logs the last_accessed_at writes it could not
// make; it used to wait for ever on a flush without a deadline.
func TestCloseDuringAPartitionEnds(t *testing.T) {
	t.Parallel()
	a, _, p := storetest.PairThrough(t)
	e := apptest.New(t, a, nil) // no Start: the touch stays pending until Close
	e.PendingTouch(e.CreateOrg("acme", "ALL_ALLOWED", nil), "ada@acme.test")

	p.BlackHole()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- e.App.Close() }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Close reported no error with its writes not made")
		}
	case <-time.After(10 * time.Second):
		p.Cut() // let the test end
		t.Fatal("Close still waiting 10 s into a partition")
	}
	t.Logf("Close returned after %s", time.Since(start))
	if !strings.Contains(e.Logs(), "last_accessed_at of sessions not written at shutdown") {
		t.Errorf("Close did not log the touches it could not write:\n%s", e.Logs())
	}
}

// A request that reaches the database right as a partition begins, past
// the change feed's check (which the last poll, under a second old,
// covers), waits on its own statement, which TCP never ends against a
// peer that takes packets and never answers: the request's deadline
// (config's RequestTimeout, serve's WriteTimeout) ends it with a 500,
// where it used to hold its connection and goroutine until the client
// went away.
func TestRequestIntoAPartitionEndsAtItsDeadline(t *testing.T) {
	t.Parallel()
	a, _, p := storetest.PairThrough(t)
	const deadline = 2 * time.Second
	e := apptest.New(t, a, func(c *config.Config) { c.RequestTimeout = deadline })
	ctx, cancel := context.WithCancel(context.Background())
	e.App.Start(ctx)
	t.Cleanup(func() { cancel(); p.Pass(); p.Cut(); _ = e.App.Close() })
	org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
	token, _, _ := e.Login(org, "ada@acme.test")
	if status, _, err := timedCheck(e, token, 5*time.Second); err != nil || status != 200 {
		t.Fatalf("check before the partition: %d %v", status, err)
	}

	p.BlackHole()
	body, _ := json.Marshal(map[string]any{"session_token": token})
	req, _ := http.NewRequest(http.MethodPost, e.Srv.URL+"/v1/b2b/sessions/revoke", bytes.NewReader(body))
	req.SetBasicAuth(e.Project.Project.ID, e.Project.Secret)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	status, errType, err := timedDo(req, 3*deadline)
	if err != nil || status != 500 || errType != "internal_server_error" {
		t.Fatalf("revoke sent as the partition began, after %s: %d %q %v, want 500 internal_server_error",
			time.Since(start), status, errType, err)
	}
}
