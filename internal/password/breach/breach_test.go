package breach

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
)

// rangeServer speaks the Pwned Passwords range protocol for a fixed set of
// breached passwords, padding every answer with count-0 lines as the real
// API does on request, and records the prefixes it was asked for.
type rangeServer struct {
	*httptest.Server
	mu       sync.Mutex
	prefixes []string
}

func newRangeServer(t *testing.T, breached map[string]int, padding ...string) *rangeServer {
	t.Helper()
	rs := &rangeServer{}
	rs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		prefix, ok := strings.CutPrefix(r.URL.Path, "/range/")
		if !ok || len(prefix) != 5 {
			http.NotFound(w, r)
			return
		}
		rs.mu.Lock()
		rs.prefixes = append(rs.prefixes, prefix)
		rs.mu.Unlock()
		for pw, n := range breached {
			d := sha1Hex(pw)
			if d[:5] == prefix {
				fmt.Fprintf(w, "%s:%d\r\n", d[5:], n)
			}
		}
		for _, pw := range padding { // count 0: padding, not a breach
			d := sha1Hex(pw)
			if d[:5] == prefix {
				fmt.Fprintf(w, "%s:0\r\n", d[5:])
			}
		}
		fmt.Fprintf(w, "%s:3\r\n", strings.Repeat("F", 35))
	}))
	t.Cleanup(rs.Close)
	return rs
}

func sha1Hex(s string) string {
	sum := sha1.Sum([]byte(s))
	return strings.ToUpper(hex.EncodeToString(sum[:]))
}

func TestRangeProtocol(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	rs := newRangeServer(t, map[string]int{"purple-monkey-dishwasher-77": 12}, "only-padding-xyz-2931")
	c := New(rs.URL, clk, nil)
	for pw, want := range map[string]bool{
		"purple-monkey-dishwasher-77": true,  // only the fake API knows it
		"only-padding-xyz-2931":       false, // a count-0 padding line is no breach
		"unlisted-and-unknown-8812":   false,
		"Password1":                   true, // on the shipped list, checked even when the API says no
	} {
		got, src := c.Breached(t.Context(), pw)
		if got != want || src != SourceRemote {
			t.Errorf("Breached(%q) = %v from %s, want %v from remote", pw, got, src, want)
		}
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, p := range rs.prefixes {
		if len(p) != 5 {
			t.Errorf("sent %q: more than the 5-character prefix left the server", p)
		}
	}
}

func TestOfflineFallsBackToList(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	rs := newRangeServer(t, map[string]int{"purple-monkey-dishwasher-77": 12})
	c := New(rs.URL, clk, nil)
	rs.Close() // the API goes away

	if got, src := c.Breached(t.Context(), "Summer2024!"); !got || src != SourceList {
		t.Fatalf("offline, listed password: %v from %s", got, src)
	}
	if got, src := c.Breached(t.Context(), "purple-monkey-dishwasher-77"); got || src != SourceList {
		t.Fatalf("offline, unlisted password: %v from %s", got, src)
	}

	// Errors other than a dead socket fall back too.
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
	}))
	defer bad.Close()
	c2 := New(bad.URL, clk, nil)
	if got, src := c2.Breached(t.Context(), "qwerty123"); !got || src != SourceList {
		t.Fatalf("503: %v from %s", got, src)
	}
	// After a failure the API is not asked again until the retry delay has
	// passed, then it is.
	up := newRangeServer(t, map[string]int{"purple-monkey-dishwasher-77": 1})
	c2.base = up.URL
	if _, src := c2.Breached(t.Context(), "purple-monkey-dishwasher-77"); src != SourceList {
		t.Fatalf("remote asked during the back-off: %s", src)
	}
	clk.Advance(retryAfterFailure)
	if got, src := c2.Breached(t.Context(), "purple-monkey-dishwasher-77"); !got || src != SourceRemote {
		t.Fatalf("after the back-off: %v from %s", got, src)
	}
}

func TestGarbageAnswerFallsBack(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "<html>captive portal</html>")
	}))
	defer srv.Close()
	if got, src := New(srv.URL, clk, nil).Breached(t.Context(), "letmein"); !got || src != SourceList {
		t.Fatalf("garbage answer: %v from %s", got, src)
	}
}

func TestShippedList(t *testing.T) {
	t.Parallel()
	c := New("off", clock.Real{}, nil)
	if n := c.CommonListSize(); n < 5000 {
		t.Fatalf("shipped list has %d entries, want thousands", n)
	}
	for _, pw := range []string{"123456", "password", "qwerty", "iloveyou", "Password1", "P@ssw0rd", "Welcome123!",
		"Summer2024!", "1qaz2wsx", "trustno1", "11111111"} {
		if !c.InCommonList(pw) {
			t.Errorf("%q is not on the shipped list", pw)
		}
	}
	for _, pw := range []string{"", "# Common breached passwords", "correct horse battery staple wombat"} {
		if c.InCommonList(pw) {
			t.Errorf("%q is on the list", pw)
		}
	}
}

// A caller that hangs up while the range API is answering (a client that
// cancels its strength check) is no failure of the API: the next caller
// still asks it, rather than everyone getting the list alone for
// retryAfterFailure. A failure while the caller waits still switches it off.
func TestCallerLeavingDoesNotSwitchTheRemoteOff(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	rs := newRangeServer(t, map[string]int{"purple-monkey-dishwasher-77": 12})
	arrived, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	var slow atomic.Bool
	slow.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() {
			arrived <- struct{}{}
			select { // the caller's hang-up reaches the server, or the test ends
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		rs.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c := New(srv.URL, clk, nil)

	ctx, hangUp := context.WithCancel(t.Context())
	go func() { <-arrived; hangUp() }()
	if got, src := c.Breached(ctx, "Summer2024!"); !got || src != SourceList {
		t.Fatalf("caller gone: %v from %s, want the list's verdict", got, src)
	}
	slow.Store(false)
	if got, src := c.Breached(t.Context(), "purple-monkey-dishwasher-77"); !got || src != SourceRemote {
		t.Fatalf("after a caller hung up: %v from %s, want the remote asked", got, src)
	}

	// The API failing while its caller waits still switches it off.
	rs.Close()
	c.base = rs.URL
	if _, src := c.Breached(t.Context(), "purple-monkey-dishwasher-77"); src != SourceList {
		t.Fatalf("remote down: %s", src)
	}
	c.base = srv.URL
	if _, src := c.Breached(t.Context(), "purple-monkey-dishwasher-77"); src != SourceList {
		t.Fatalf("remote asked during the back-off after a real failure: %s", src)
	}
}
