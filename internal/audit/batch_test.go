package audit

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// Events recorded while a batch is being written share the next
// transaction, every Record returns only once its event is committed, and
// an event that cannot be filed fails alone.
func TestConcurrentRecordsShareTransactions(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		l := New(db, clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)))
		// Hold the audit table so the first batch cannot commit until the
		// rest are queued: on SQLite with the writer, on PostgreSQL with a
		// table lock.
		held, release := make(chan struct{}), make(chan struct{})
		holder := make(chan error, 1)
		go func() {
			holder <- db.Tx(ctx, func(q store.Querier) error {
				var err error
				if db.Dialect() == store.Postgres {
					_, err = q.ExecContext(ctx, `LOCK TABLE audit_events IN EXCLUSIVE MODE`)
				} else {
					_, err = q.ExecContext(ctx, `DELETE FROM audit_events WHERE project_id = 'none'`)
				}
				close(held)
				<-release
				return err
			})
		}()
		<-held
		before := db.Writes()
		const n = 20
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- l.Record(ctx, Event{ProjectID: "project-test-1", Type: Login, RequestID: fmt.Sprint(i)})
			}()
		}
		// Every Record is queued or writing before the table is released.
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			l.batch.mu.Lock()
			queued := len(l.batch.queue)
			l.batch.mu.Unlock()
			if queued >= n-1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("only %d events queued", queued)
			}
		}
		close(release)
		if err := <-holder; err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("record: %v", err)
			}
		}
		evs, err := l.List(ctx, Filter{ProjectID: "project-test-1", Limit: 100})
		if err != nil || len(evs) != n {
			t.Fatalf("%d events listed (%v), want %d", len(evs), err, n)
		}
		// The holder's commit, the first event's batch and one batch of
		// the other nineteen.
		if w := db.Writes() - before; w > 3 {
			t.Fatalf("%d write transactions for %d concurrent events, want at most 3", w, n)
		}
		if err := l.Record(ctx, Event{Type: Login}); err == nil {
			t.Fatal("an event without a project was recorded")
		}
	})
}
