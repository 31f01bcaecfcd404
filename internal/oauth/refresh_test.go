package oauth_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// realTime sets e's clock to the real time: the provider's expires_in
// counts from it (x/oauth2 reads the real clock for a token's expiry).
func realTime(e *apptest.Env) { e.Clock.Advance(-time.Until(e.Clock.Now())) }

// githubInfo is the member's one GitHub registration as the backend's
// oauth_providers route answers it, refresh token included.
func githubInfo(t *testing.T, e *apptest.Env, path string) (access, refresh string, expiresIn float64) {
	t.Helper()
	r := e.Backend(http.MethodGet, path+"?include_refresh_token=true", nil)
	apptest.Want(t, r, 200, "")
	regs, _ := r.Body["registrations"].([]any)
	if len(regs) != 1 {
		t.Fatalf("registrations: %s", r.Raw)
	}
	reg := regs[0].(map[string]any)
	expiresIn, _ = reg["access_token_expires_in"].(float64)
	return str(reg, "access_token"), str(reg, "refresh_token"), expiresIn
}

// The vendor: "If a refresh token has been issued, Stytch will refresh
// the access token automatically." An access token that has expired, or
// expires within a minute, is redeemed at the provider's token endpoint
// before oauth_providers answers it, and the answer is stored: the next
// call answers it without a second refresh. The refresh token stays
// unless the provider rotates it.
func TestProviderInfoRefreshesAnExpiringAccessToken(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		realTime(e)
		f, _, _, login, path := githubLogin(t, e)
		f.queueTokens([2]string{"at-1", "rt-1"})
		login()
		if access, _, in := githubInfo(t, e, path); access != "at-1" || in < 3500 || f.refreshCount() != 0 {
			t.Fatalf("fresh token: %s expires in %v, %d refreshes", access, in, f.refreshCount())
		}
		// More than a minute left: not yet.
		e.Clock.Advance(58 * time.Minute)
		if access, _, _ := githubInfo(t, e, path); access != "at-1" || f.refreshCount() != 0 {
			t.Fatalf("two minutes left: %s, %d refreshes", access, f.refreshCount())
		}
		e.Clock.Advance(90 * time.Second)
		access, refresh, in := githubInfo(t, e, path)
		if access != "at-r1" || refresh != "rt-1" || in < 3500 || f.refreshCount() != 1 {
			t.Fatalf("30 seconds left: %s %s expires in %v, %d refreshes", access, refresh, in, f.refreshCount())
		}
		if access, _, _ := githubInfo(t, e, path); access != "at-r1" || f.refreshCount() != 1 {
			t.Fatalf("after the refresh: %s, %d refreshes", access, f.refreshCount())
		}
		// Expired, and the provider rotates the refresh token.
		e.Clock.Advance(3 * time.Hour)
		f.queueRefresh([2]string{"at-r2", "rt-2"})
		if access, refresh, _ := githubInfo(t, e, path); access != "at-r2" || refresh != "rt-2" || f.refreshCount() != 2 {
			t.Fatalf("rotated: %s %s, %d refreshes", access, refresh, f.refreshCount())
		}
		e.Clock.Advance(3 * time.Hour)
		if access, refresh, _ := githubInfo(t, e, path); access != "at-r3" || refresh != "rt-2" || f.refreshCount() != 3 {
			t.Fatalf("after the rotation: %s %s, %d refreshes", access, refresh, f.refreshCount())
		}
	})
}

// A refresh the provider refuses answers the stored tokens unchanged (the
// vendor does not say otherwise): the expired access token, expiring in
// 0. The failure is logged, without the tokens, and the next call tries
// again.
func TestProviderInfoRefreshFailures(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		realTime(e)
		f, _, _, login, path := githubLogin(t, e)
		f.queueTokens([2]string{"at-1", "rt-1"})
		login()
		f.mu.Lock()
		delete(f.refreshable, "rt-1") // revoked at the provider
		f.mu.Unlock()
		e.Clock.Advance(61 * time.Minute)
		if access, refresh, in := githubInfo(t, e, path); access != "at-1" || refresh != "rt-1" || in != 0 {
			t.Fatalf("refused refresh: %s %s expires in %v", access, refresh, in)
		}
		logs := e.Logs()
		if !strings.Contains(logs, "refresh failed") || !strings.Contains(logs, "invalid_grant") {
			t.Fatalf("the failure is not logged:\n%s", logs)
		}
		if strings.Contains(logs, "rt-1") || strings.Contains(logs, "at-1") {
			t.Fatalf("the log holds a token:\n%s", logs)
		}
		f.mu.Lock()
		f.refreshable["rt-1"] = true
		f.mu.Unlock()
		if access, _, in := githubInfo(t, e, path); access != "at-r1" || in < 3000 {
			t.Fatalf("the next call: %s expires in %v", access, in)
		}
	})
}

// Without a refresh token nothing is tried: the expired access token is
// answered as it is.
func TestProviderInfoWithoutRefreshToken(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		realTime(e)
		f, _, _, login, path := githubLogin(t, e)
		f.queueTokens([2]string{"at-1", ""})
		login()
		e.Clock.Advance(2 * time.Hour)
		if access, refresh, in := githubInfo(t, e, path); access != "at-1" || refresh != "" || in != 0 || f.refreshCount() != 0 {
			t.Fatalf("expired without a refresh token: %s %q expires in %v, %d refreshes", access, refresh, in, f.refreshCount())
		}
	})
}

// Concurrent calls refresh once: on one replica they share the refresh,
// and across replicas the one that leases the registration refreshes
// while the other waits for its answer. A second refresh with a rotated
// refresh token would fail, or make the provider revoke the grant.
func TestProviderInfoRefreshesOnceAcrossReplicas(t *testing.T) {
	apptest.EachPair(t, func(t *testing.T, e1, e2 *apptest.Env) {
		realTime(e1)
		realTime(e2)
		f, _, _, login, path := githubLogin(t, e1)
		f.queueTokens([2]string{"at-1", "rt-1"})
		login()
		f.queueRefresh([2]string{"at-r1", "rt-2"})
		f.mu.Lock()
		f.refreshDelay = 300 * time.Millisecond
		f.mu.Unlock()
		// To at-1's expiry (3600 s from the login, by the provider's wall
		// clock), not past it: the refreshed at-r1 expires 7200 s after the
		// refresh by that wall clock, so two hours ahead it looked expired
		// (due within refreshAhead) at once, and a call that began after
		// the refresh was stored, as goroutines slowed by the race
		// detector do, refreshed it again.
		e1.Clock.Advance(time.Hour)
		e2.Clock.Advance(time.Hour)
		var wg sync.WaitGroup
		answers := make([]apptest.Resp, 6)
		for i := range answers {
			e := e1
			if i%2 == 1 {
				e = e2
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i] = e.Backend(http.MethodGet, path+"?include_refresh_token=true", nil)
			}()
		}
		wg.Wait()
		for i, r := range answers {
			regs, _ := r.Body["registrations"].([]any)
			if r.Status != 200 || len(regs) != 1 || str(regs[0].(map[string]any), "access_token") != "at-r1" ||
				str(regs[0].(map[string]any), "refresh_token") != "rt-2" {
				t.Errorf("call %d: %d %s", i, r.Status, r.Raw)
			}
		}
		if n := f.refreshCount(); n != 1 {
			t.Fatalf("%d refreshes, want 1", n)
		}
		// A call after the refresh, on either replica, answers at-r1 as it
		// is: the refreshed token is fresh.
		for _, e := range []*apptest.Env{e1, e2} {
			if access, _, _ := githubInfo(t, e, path); access != "at-r1" || f.refreshCount() != 1 {
				t.Fatalf("after the refresh: %s, %d refreshes", access, f.refreshCount())
			}
		}
	})
}
