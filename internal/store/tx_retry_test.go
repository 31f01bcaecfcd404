package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// Two transactions that lock the same rows in opposite orders deadlock on
// PostgreSQL; Tx retries the victim, so both commit.
func TestTxRetriesDeadlockVictim(t *testing.T) {
	db := storetest.Postgres(t)
	ctx := context.Background()
	for _, id := range []string{"a", "b"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO rate_limits (bucket, window_start, hits) VALUES ($1, 0, 0)`, id); err != nil {
			t.Fatal(err)
		}
	}
	var runs atomic.Int32
	var ready sync.WaitGroup
	ready.Add(2)
	var once [2]sync.Once
	bump := func(i int, first, second string) error {
		return db.Tx(ctx, func(q store.Querier) error {
			runs.Add(1)
			if _, err := q.ExecContext(ctx, `UPDATE rate_limits SET hits = hits + 1 WHERE bucket = $1`, first); err != nil {
				return err
			}
			// Only the first run waits for the other transaction, so the
			// retry does not deadlock again.
			once[i].Do(func() { ready.Done(); ready.Wait(); time.Sleep(50 * time.Millisecond) })
			_, err := q.ExecContext(ctx, `UPDATE rate_limits SET hits = hits + 1 WHERE bucket = $1`, second)
			return err
		})
	}
	errs := make(chan error, 2)
	go func() { errs <- bump(0, "a", "b") }()
	go func() { errs <- bump(1, "b", "a") }()
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatalf("transaction: %v", err)
		}
	}
	if runs.Load() < 3 {
		t.Fatalf("runs = %d: no deadlock happened, the test proves nothing", runs.Load())
	}
	var total int
	if err := db.QueryRowContext(ctx, `SELECT SUM(hits) FROM rate_limits`).Scan(&total); err != nil || total != 4 {
		t.Fatalf("hits = %d, %v; want 4 (each transaction's two updates once)", total, err)
	}
}
