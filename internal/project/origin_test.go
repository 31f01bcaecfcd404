package project

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest/testkeys"
	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

const allowedOrigin = "https://app.example"

// corsFixture is a project authorizing allowedOrigin, its resolver, and
// the SDK face's CORS handling in front of a handler that answers 204.
func corsFixture(t *testing.T, db *store.DB) (*Created, *Resolver, http.Handler) {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	s := NewStore(db, clk, secretbox.NewRandom())
	s.UseKeySource(testkeys.Source)
	p, err := s.Create(context.Background(), CreateParams{Name: "Origins", Origins: []string{allowedOrigin}})
	if err != nil {
		t.Fatal(err)
	}
	r := NewResolver(s, ratelimit.New(db, clk), changefeed.New(db, slog.New(slog.NewTextHandler(io.Discard, nil))))
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	return p, r, httpapi.Chain(next, httpapi.WithCORS(OriginPolicy{Resolver: r, BaseOrigin: "http://latchkey.test"}))
}

// preflight sends a CORS preflight from origin and reports whether it
// was allowed.
func preflight(h http.Handler, origin string) bool {
	req := httptest.NewRequest(http.MethodOptions, "/sdk/v1/b2b/sessions/authenticate", nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", http.MethodPost)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Header().Get("Access-Control-Allow-Origin") == origin
}

func entries[V any](m *memo[V]) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.items)
}

// An Origin header no browser could send matches no stored origin: it is
// refused without reading the database (a cancelled context would fail
// any read) and without an entry in the origins memo, whose bound is a
// count of entries, not bytes. A well-formed origin is answered and
// remembered as before.
func TestMalformedOriginsAreRefusedUnremembered(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		p, r, h := corsFixture(t, db)
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		longHost := "https://" + strings.Repeat("a", maxHostLen+1)
		for _, origin := range []string{
			allowedOrigin + "/", allowedOrigin + "/login", allowedOrigin + "?x=1", allowedOrigin + "#top",
			"https://APP.example", "https://app.example:443", "https://user@app.example", " " + allowedOrigin,
			"null", "app.example", "ftp://app.example", longHost, longHost + ":1",
			"https://" + strings.Repeat("a.", 450_000) + "example",
		} {
			if preflight(h, origin) {
				t.Errorf("preflight from %.60q allowed", origin)
			}
			if ok, err := r.OriginAllowed(cancelled, "", origin); ok || err != nil {
				t.Errorf("OriginAllowed(%.60q) = %v, %v: want a refusal without a database read", origin, ok, err)
			}
			if ok, err := r.OriginAllowed(cancelled, p.Project.ID, origin); ok || err != nil {
				t.Errorf("OriginAllowed(project, %.60q) = %v, %v: want a refusal without a database read", origin, ok, err)
			}
		}
		if n := entries(&r.cache.origins); n != 0 {
			t.Fatalf("%d origins remembered after malformed ones only", n)
		}

		for range 2 {
			if !preflight(h, allowedOrigin) {
				t.Fatal("the project's origin was refused")
			}
		}
		if preflight(h, "https://other.example") {
			t.Fatal("an origin no project authorized was allowed")
		}
		if ok, err := r.OriginAllowed(context.Background(), p.Project.ID, allowedOrigin); !ok || err != nil {
			t.Fatalf("the project's origin for the project: %v, %v", ok, err)
		}
		// A refusal of a well-formed origin is remembered: its key is
		// short, and remembering it spares the database a read per request.
		if n := entries(&r.cache.origins); n != 3 {
			t.Fatalf("%d origins remembered, want 3", n)
		}
	})
}

// The audit's case: a few hundred unauthenticated preflights with huge
// Origin headers used to leave every header in the origins memo (300 of
// 900 KB pinned 266 MiB). After them, the heap is about what it was.
func TestHugeOriginPreflightsPinNoMemory(t *testing.T) {
	// One engine: the memo is the same on both, and the heap is the
	// process's, so no other subtest may run beside this one.
	_, r, h := corsFixture(t, storetest.SQLite(t))
	const n, size = 300, 256 << 10 // 75 MiB in all
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	for i := range n {
		origin := fmt.Sprintf("https://%d.", i) + strings.Repeat("a", size)
		if preflight(h, origin) {
			t.Fatal("a huge origin was allowed")
		}
	}
	after := heap()
	if grew := int64(after) - int64(before); grew > 8<<20 {
		t.Fatalf("heap grew by %d MiB after %d preflights of %d KiB origins", grew>>20, n, size>>10)
	}
	if n := entries(&r.cache.origins); n != 0 {
		t.Fatalf("%d huge origins remembered", n)
	}
	if !preflight(h, allowedOrigin) {
		t.Fatal("the project's origin was refused after the flood")
	}
}

// The backend face's username is a project id the secrets memo remembers
// even when unknown (so that its refusal costs what a real project's wrong
// secret costs): only an id of a project id's shape is looked up and
// remembered. Others are refused as not found, unread.
func TestSecretsRememberOnlyProjectShapedIDs(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		p, r, _ := corsFixture(t, db)
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		for _, id := range []string{strings.Repeat("p", 900_000), p.Project.ID + "x", "project-test-acme", "",
			"project-prod-" + p.Project.ID[len("project-test-"):]} {
			if _, err := r.CheckSecret(cancelled, id, p.Secret); !IsNotFound(err) {
				t.Errorf("CheckSecret(%.40q) = %v: want not found without a database read", id, err)
			}
		}
		if n := entries(&r.cache.secrets); n != 0 {
			t.Fatalf("%d secret entries after malformed ids only", n)
		}
		ctx := context.Background()
		if got, err := r.CheckSecret(ctx, p.Project.ID, p.Secret); err != nil || got.ID != p.Project.ID {
			t.Fatalf("the project's secret: %v, %v", got, err)
		}
		unknown := "project-test-00000000-0000-4000-8000-000000000000"
		if _, err := r.CheckSecret(ctx, unknown, p.Secret); !IsNotFound(err) {
			t.Fatalf("an unknown project: %v", err)
		}
		if n := entries(&r.cache.secrets); n != 2 {
			t.Fatalf("%d secret entries, want the project and the unknown id", n)
		}
	})
}

// A server without an origin of its own (BaseOrigin "", a base URL under a
// path prefix) trusts no origin for that reason, an empty one included:
// only what the projects authorize passes.
func TestNoOwnOriginTrustsNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		_, r, _ := corsFixture(t, db)
		policy := OriginPolicy{Resolver: r}
		req := httptest.NewRequest(http.MethodPost, "/sdk/v1/events", nil)
		for origin, want := range map[string]bool{"": false, "http://latchkey.test": false, allowedOrigin: true} {
			for _, pre := range []bool{true, false} {
				if got := policy.AllowOrigin(req, origin, pre); got != want {
					t.Errorf("AllowOrigin(%q, preflight %t) = %t, want %t", origin, pre, got, want)
				}
			}
			if got, err := policy.AllowsFor(context.Background(), "", origin); err != nil || got {
				t.Errorf("AllowsFor(no project, %q) = %t, %v; want false", origin, got, err)
			}
		}
	})
}

// AllowsFor judges an origin for the one project named, whatever the
// request's credentials: the server's own origin, or one of that project's
// own; another project's origin is not enough, and no project allows
// nothing.
func TestAllowsForChecksTheNamedProject(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p, r, _ := corsFixture(t, db)
		other, err := r.store.Create(ctx, CreateParams{Name: "Other", Origins: []string{"https://other.example"}})
		if err != nil {
			t.Fatal(err)
		}
		o := OriginPolicy{Resolver: r, BaseOrigin: "http://latchkey.test"}
		for _, c := range []struct {
			project, origin string
			want            bool
		}{
			{p.Project.ID, allowedOrigin, true},
			{p.Project.ID, "http://latchkey.test", true},
			{p.Project.ID, "https://other.example", false},
			{other.Project.ID, "https://other.example", true},
			{other.Project.ID, allowedOrigin, false},
			{"", allowedOrigin, false},
		} {
			if got, err := o.AllowsFor(ctx, c.project, c.origin); err != nil || got != c.want {
				t.Errorf("AllowsFor(%q, %q) = %v, %v; want %v", c.project, c.origin, got, err, c.want)
			}
		}
	})
}
