package store_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A server start against an address that accepts connections but never
// answers (a hung server, a black-holing middlebox) fails within the
// connect timeout with an error naming the address, never the password,
// where it used to hang silently for as long as the socket lived.
func TestOpenFailsWhenPostgresDoesNotAnswer(t *testing.T) {
	t.Parallel()
	proxied, _, p := storetest.PostgresThrough(t)
	u, err := url.Parse(proxied)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("postgres", "s3cret-pass")
	p.BlackHole()

	type result struct {
		db  *store.DB
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		db, err := store.Open(context.Background(), u.String())
		done <- result{db, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(store.ConnectTimeout + 5*time.Second):
		p.Cut()
		t.Fatalf("Open still waiting %s after it began", time.Since(start))
	}
	if r.err == nil {
		r.db.Close()
		t.Fatal("Open succeeded against a server that never answers")
	}
	msg := r.err.Error()
	t.Log(msg)
	if !errors.Is(r.err, store.ErrUnavailable) || !strings.Contains(msg, p.Addr()) || strings.Contains(msg, "s3cret-pass") {
		t.Errorf("Open's error %q: want store.ErrUnavailable, the address %s and no password", msg, p.Addr())
	}
	if d := time.Since(start); d > store.ConnectTimeout+2*time.Second {
		t.Errorf("Open failed after %s, want about the connect timeout (%s)", d, store.ConnectTimeout)
	}
}
