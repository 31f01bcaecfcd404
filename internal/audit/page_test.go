package audit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A listing longer than a page is read whole by passing each page's last
// event as the next page's cursor: every event once, newest first, even
// when several share a millisecond (a page may end in the middle of them).
// Until bounds the window from above, and a limit the log cannot honour is
// refused rather than quietly replaced.
func TestListPagesThroughEveryEvent(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		c := clock.NewFake(start)
		l := audit.New(db, c)
		const project = "project-test-1"
		// 7 milliseconds of 3 events each: 21 events.
		for ms := range 7 {
			for i := range 3 {
				if err := l.Record(ctx, audit.Event{ProjectID: project, Type: audit.Login,
					Details: map[string]any{"n": fmt.Sprintf("%d.%d", ms, i)}}); err != nil {
					t.Fatal(err)
				}
			}
			c.Advance(time.Millisecond)
		}
		if err := l.Record(ctx, audit.Event{ProjectID: "project-test-other", Type: audit.Login}); err != nil {
			t.Fatal(err)
		}
		all, err := l.List(ctx, audit.Filter{ProjectID: project, Limit: audit.MaxLimit})
		if err != nil || len(all) != 21 {
			t.Fatalf("whole listing: %d events, %v", len(all), err)
		}
		var paged []audit.Event
		f := audit.Filter{ProjectID: project, Limit: 4}
		for range 10 {
			page, err := l.List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			paged = append(paged, page...)
			if len(page) < f.Limit {
				break
			}
			f.Before = page[len(page)-1].ID
		}
		if len(paged) != len(all) {
			t.Fatalf("paged %d events, want %d", len(paged), len(all))
		}
		for i := range all {
			if paged[i].ID != all[i].ID {
				t.Fatalf("event %d: paged %s, listed %s", i, paged[i].ID, all[i].ID)
			}
		}

		// Until is exclusive: events of the first two milliseconds only.
		older, err := l.List(ctx, audit.Filter{ProjectID: project, Until: start.Add(2 * time.Millisecond)})
		if err != nil || len(older) != 6 {
			t.Fatalf("until: %d events, %v; want 6", len(older), err)
		}
		for _, e := range older {
			if !e.CreatedAt.Before(start.Add(2 * time.Millisecond)) {
				t.Errorf("until listed an event of %s", e.CreatedAt)
			}
		}

		for _, limit := range []int{-1, audit.MaxLimit + 1} {
			if _, err := l.List(ctx, audit.Filter{ProjectID: project, Limit: limit}); err == nil {
				t.Errorf("limit %d was accepted", limit)
			}
		}
		other, err := l.List(ctx, audit.Filter{ProjectID: "project-test-other"})
		if err != nil || len(other) != 1 {
			t.Fatalf("other project: %d events, %v", len(other), err)
		}
		// A cursor of another project's event is no cursor here.
		if _, err := l.List(ctx, audit.Filter{ProjectID: project, Before: other[0].ID}); !errors.Is(err, audit.ErrCursorNotFound) {
			t.Errorf("foreign cursor: %v, want ErrCursorNotFound", err)
		}
	})
}
