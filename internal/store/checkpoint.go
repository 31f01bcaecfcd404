package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"time"
)

// WAL checkpoints on SQLite. SQLite's automatic checkpoint runs inside the
// commit that takes the log past 1,000 pages, on the writer connection:
// the writer then copies those pages into the database file and syncs it
// while every other write waits. Under email-code load that came about
// every 25 logins and held SQLite's one writer for milliseconds each time.
//
// The writer's automatic checkpoint is off, and a background loop does the
// work in two steps:
//
//  1. A PASSIVE checkpoint on a read connection copies what it can while
//     writes go on (it takes no write lock).
//  2. When the log has grown past ckptRestartPages, a RESTART checkpoint
//     runs on the writer connection itself, queued like a transaction.
//     With no write in between it copies only what was committed during
//     step 1, then waits briefly for the readers still on the log, so the
//     next write starts the log again from its beginning. Without this
//     step a log under continuous writes is never fully copied at the
//     moment a write begins, and grows without end.
//
// The log file is cut back to walSizeLimit when it restarts.
//
// A pass every 500 ms rather than every 100 ms: each pass syncs the log
// and the database file, and copies every page written since the last
// one, and the hot pages (the newest leaves of tables and indexes) are
// written many times in between. In three rounds of alternating email-flow
// runs, passes every 100, 250 and 500 ms (restarting past 8, 16 and 32 MiB)
// gave 558-569, 582-603 and 608-633 flows/s, with the send p99 lower at
// each step; every second (64 MiB) was no better than 500 ms, and its p99
// less steady.
const (
	ckptInterval     = 500 * time.Millisecond
	ckptRestartPages = 8192     // 32 MiB of log with 4 KiB pages
	walSizeLimit     = 64 << 20 // bytes kept of a restarted log file
	restartWait      = 20 * time.Millisecond
)

// checkpointer runs the background checkpoints of one SQLite database.
type checkpointer struct {
	stop     chan struct{}
	stopOnce sync.Once
	done     sync.WaitGroup
}

// startCheckpoints starts db's checkpoint loop; close stops it.
func (db *DB) startCheckpoints(every time.Duration, restartPages int) *checkpointer {
	c := &checkpointer{stop: make(chan struct{})}
	c.done.Add(1)
	go func() {
		defer c.done.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		seen := db.writes.Load()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
			}
			// Nothing to copy when this process wrote nothing since the
			// last pass (another process's writes are its own to copy).
			if w := db.writes.Load(); w != seen {
				seen = w
				// A failed pass is tried again at the next write; the I/O
				// errors that could make it fail reach the writes too,
				// which report them.
				_ = db.checkpoint(restartPages)
			}
		}
	}()
	return c
}

// close stops the loop and waits for it; closing twice is harmless.
func (c *checkpointer) close() {
	c.stopOnce.Do(func() { close(c.stop) })
	c.done.Wait()
}

// checkpoint runs step 1, and step 2 when the log is long enough.
func (db *DB) checkpoint(restartPages int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pages, err := passiveCheckpoint(ctx, db.r)
	if err != nil || pages < restartPages {
		return err
	}
	return db.restartCheckpoint(ctx)
}

// restartCheckpoint is step 2: a RESTART checkpoint on the writer
// connection. It copies what step 1 could not and waits, up to
// restartWait, for the readers still on the log to finish, so that the
// next write starts the log again. A reader slower than that leaves the
// log as it is until the next pass.
func (db *DB) restartCheckpoint(ctx context.Context) error {
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: checkpoint: %w", err)
	}
	defer conn.Close()
	var busy, logPages, copied int
	_, err = conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, restartWait.Milliseconds()))
	if err == nil {
		err = conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(RESTART)`).Scan(&busy, &logPages, &copied)
	}
	// The writer's own wait for other processes' locks comes back whatever
	// happened; a connection that cannot be given it back is closed.
	if _, rerr := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, busyTimeout.Milliseconds())); rerr != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		err = errors.Join(err, rerr)
	}
	if err != nil {
		return fmt.Errorf("store: checkpoint: %w", err)
	}
	return nil
}

// passiveCheckpoint runs a PASSIVE checkpoint on a connection of pool and
// returns the log's length in pages.
func passiveCheckpoint(ctx context.Context, pool *sql.DB) (int, error) {
	var busy, logPages, copied int
	if err := pool.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logPages, &copied); err != nil {
		return 0, fmt.Errorf("store: checkpoint: %w", err)
	}
	return logPages, nil
}
