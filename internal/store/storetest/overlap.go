package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/store"
)

// Overlap drives two writers through one PostgreSQL interleaving without
// timing: first runs in a transaction that is held open after its work,
// second then runs concurrently (its own transactions, or requests to a
// server on db), and first commits once second has returned or waits for
// a lock first holds, which PostgreSQL reports (pg_blocking_pids). It
// returns both outcomes. PostgreSQL only: SQLite has one writer, so the
// second would simply wait for the first.
func Overlap(t *testing.T, db *store.DB, first func(q store.Querier) error, second func() error) (firstErr, secondErr error) {
	t.Helper()
	return Interleave(t, db, first, second, nil)
}

// Interleave is Overlap with a last step: once second has returned or
// waits for a lock first holds, then (unless nil) runs in first's
// transaction before it commits. It drives a lock taken by first after
// second's began, the interleaving where opposite lock orders deadlock.
// first's transaction may run again (store.Tx retries a deadlock's loser);
// the hold is skipped then.
func Interleave(t *testing.T, db *store.DB, first func(q store.Querier) error, second func() error,
	then func(q store.Querier) error) (firstErr, secondErr error) {
	t.Helper()
	ctx := t.Context()
	holder, commit, firstDone := make(chan int, 1), make(chan struct{}), make(chan error, 1)
	var once sync.Once
	release := func() { once.Do(func() { close(commit) }) }
	t.Cleanup(release) // a failed test does not leave it open
	go func() {
		firstDone <- db.Tx(ctx, func(q store.Querier) error {
			if err := first(q); err != nil {
				return err
			}
			var pid int
			if err := q.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
				return err
			}
			select { // once: Tx may run this again
			case holder <- pid:
			default:
			}
			<-commit
			if then == nil {
				return nil
			}
			return then(q)
		})
	}()
	var pid int
	select {
	case pid = <-holder:
	case err := <-firstDone:
		t.Fatalf("storetest: overlap: first transaction: %v", err)
	}
	secondDone := make(chan error, 1)
	go func() {
		// A t.Fatal in second ends its goroutine without a result; the
		// loop below would wait for it forever.
		err := errors.New("storetest: overlap: second did not return (a t.Fatal in it?)")
		defer func() { secondDone <- err }()
		err = second()
	}()
	// Between looks, a pause: on two cores a loop of back-to-back queries
	// takes CPU from the very request it waits for (and from PostgreSQL).
	poll := time.NewTicker(2 * time.Millisecond)
	defer poll.Stop()
	for blocked := false; !blocked; {
		select {
		case secondErr = <-secondDone:
			release()
			return <-firstDone, secondErr
		case <-poll.C:
		}
		if err := db.Read().QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE $1::int = ANY(pg_blocking_pids(pid)))`, pid).Scan(&blocked); err != nil {
			t.Fatalf("storetest: overlap: %v", err)
		}
	}
	release()
	return <-firstDone, <-secondDone
}
