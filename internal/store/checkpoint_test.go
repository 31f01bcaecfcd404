package store

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Under continuous writes and reads, the background checkpoints keep the
// log short (it restarts), and every committed row is in the database.
func TestCheckpointsKeepTheLogBoundedUnderLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Faster and smaller than production, to see many restarts in a
	// second: a restart at 256 pages (1 MiB).
	db, path := blobDB(t, 5*time.Millisecond, 256)
	defer func() {
		if db != nil {
			db.Close()
		}
	}()

	var written atomic.Int64 // bytes committed
	var maxWAL atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := make([]byte, 2048) // random, so a row is a page's half on disk
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, _ = rand.Read(body)
				err := db.Tx(ctx, func(q Querier) error {
					for range 8 {
						if _, err := q.ExecContext(ctx, `INSERT INTO blobs (body) VALUES ($1)`, body); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
				written.Add(8 * int64(len(body)))
			}
		}()
	}
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				var n int
				if err := db.Read().QueryRowContext(ctx, `SELECT count(*) FROM blobs WHERE id > (SELECT max(id) - 10 FROM blobs)`).Scan(&n); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	// Writes go on until 32 MiB are committed, 32 restarts' worth, with
	// three readers on the log all the time (harder than a server's
	// reads, which mostly hit its caches).
	//
	// The bound is three quarters of what is written. Without the restart
	// step the log reached 42-82 MiB in runs of this test, more than was
	// written, since the hot pages are logged again with every commit; with
	// it, 3-11 MiB, the longer stretches on a loaded machine, where the
	// restart waits for readers the scheduler has set aside.
	const total, bound = 32 << 20, 24 << 20
	shm, err := os.Open(path + "-shm")
	if err != nil {
		t.Fatal(err)
	}
	defer shm.Close()
	deadline := time.Now().Add(60 * time.Second)
	for written.Load() < total && !t.Failed() {
		if time.Now().After(deadline) {
			t.Errorf("only %d MiB written in 60 s", written.Load()>>20)
			break
		}
		// The log's length, not its file's size: the file keeps its
		// largest size up to walSizeLimit when the log restarts.
		pages, err := logLength(shm)
		if err != nil {
			t.Error(err)
			break
		}
		if int64(pages)*4096 > maxWAL.Load() {
			maxWAL.Store(int64(pages) * 4096)
		}
		time.Sleep(time.Millisecond)
	}
	close(stop)
	wg.Wait()

	t.Logf("the log reached %.1f MiB while %d MiB were written", float64(maxWAL.Load())/(1<<20), written.Load()>>20)
	if maxWAL.Load() > bound {
		t.Errorf("the log reached %d MiB while %d MiB were written; want it restarted below %d MiB",
			maxWAL.Load()>>20, written.Load()>>20, bound>>20)
	}
	// Every committed row is there, and still there after a reopen.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = nil
	reopened, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	db = reopened
	var rows int64
	if err := db.Read().QueryRowContext(ctx, `SELECT count(*) FROM blobs`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows*2048 != written.Load() {
		t.Errorf("%d rows in the table, %d committed", rows, written.Load()/2048)
	}
}

// The writer does not checkpoint as it commits: without the loop, the log
// grows past SQLite's automatic threshold of 1,000 pages.
func TestTheWriterLeavesCheckpointsToTheLoop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := blobDB(t, time.Hour, 1<<30)
	defer db.Close()
	body := make([]byte, 4096)
	for range 1500 {
		if _, err := db.ExecContext(ctx, `INSERT INTO blobs (body) VALUES ($1)`, body); err != nil {
			t.Fatal(err)
		}
	}
	pages, err := passiveCheckpoint(ctx, db.r)
	if err != nil {
		t.Fatal(err)
	}
	if pages < 1500 {
		t.Errorf("the log holds %d pages after 1,500 page-sized inserts: the writer checkpointed", pages)
	}
}

// blobDB opens a SQLite database in a temporary folder with its
// checkpoint loop set to every and restartPages, and a blobs table.
func blobDB(t *testing.T, every time.Duration, restartPages int) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "blobs.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	db.ckpt.close()
	db.ckpt = db.startCheckpoints(every, restartPages)
	if _, err := db.ExecContext(context.Background(), `CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)`); err != nil {
		db.Close()
		t.Fatal(err)
	}
	return db, path
}

// logLength reads the length in frames of a database's log from its
// WAL-index header, the -shm file (mxFrame, at byte 16, in the
// machine's byte order; https://sqlite.org/walformat.html). Unlike a
// checkpoint, reading it takes no lock and copies nothing, so watching the
// log does not change what the checkpoint loop sees.
func logLength(shm *os.File) (uint32, error) {
	var b [4]byte
	if _, err := shm.ReadAt(b[:], 16); err != nil {
		return 0, err
	}
	return binary.NativeEndian.Uint32(b[:]), nil
}
