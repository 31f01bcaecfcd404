package ratelimit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A refused request counts against its key and keeps its own error until
// the key is over its limit; a server error counts nothing.
func TestCountRefused(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		l := ratelimit.New(db, clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)))
		rule := ratelimit.Rule{Name: "refused", Limit: 2, Window: time.Minute}
		boom := errors.New("disk on fire")
		for range 5 {
			if err := l.CountRefused(ctx, rule, "k", boom); !errors.Is(err, boom) {
				t.Fatalf("server error: got %v", err)
			}
		}
		jit := apierr.New(apierr.EmailJITProvisioningNotAllowed)
		for i := range rule.Limit {
			if err := l.CountRefused(ctx, rule, "k", jit); !apierr.Is(err, apierr.EmailJITProvisioningNotAllowed) {
				t.Fatalf("refusal %d: got %v", i+1, err)
			}
		}
		if err := l.CountRefused(ctx, rule, "k", jit); !apierr.Is(err, apierr.TooManyRequests) {
			t.Fatalf("refusal over the limit: got %v, want too_many_requests", err)
		}
	})
}
