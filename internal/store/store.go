// Package store opens the database (embedded SQLite or PostgreSQL), runs
// migrations, and gives domain packages one portable way to read and write.
//
// SQL is written once with $1..$N placeholders: pgx requires them and the
// modernc SQLite driver binds them by number. Timestamps are BIGINT Unix
// milliseconds and structured values are JSON in TEXT columns, so the same
// statements run on both engines.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Dialect names the database engine behind a DB.
type Dialect string

// Supported dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// ErrNotFound is returned when a row that was asked for by key is absent.
var ErrNotFound = errors.New("store: not found")

// ErrConflict is returned when a write violates a unique constraint.
var ErrConflict = errors.New("store: conflict")

// ErrParentGone is returned when a write violates a foreign key: the row
// it references (an organization, member, connection) is not there. Every
// request checks its parent before it writes, so the only way here is a
// deletion of the parent committed between that check and the write (on
// PostgreSQL the insert waits for the deleting transaction and then fails;
// on SQLite the deletion held the one writer while the request read from
// the read pool). Callers translate it into the catalogue error a missing
// parent already gets (organization_not_found, say); nothing is written,
// since the transaction rolls back.
var ErrParentGone = errors.New("store: referenced row is gone")

// Querier is what domain code runs statements against: a DB outside a
// transaction, or the transaction handed to Tx's callback.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// DB is an open database. On SQLite it keeps one writer connection (SQLite
// allows one writer at a time; queuing in Go beats SQLITE_BUSY retries) and
// a pool of read connections. On PostgreSQL both are the same pool.
type DB struct {
	w       *sql.DB
	r       *sql.DB
	wc, rc  *stmtCache // prepared statements of w and r; nil on PostgreSQL
	wq, rq  pooled     // w and r with their caches
	dialect Dialect
	writes  atomic.Uint64
	ckpt    *checkpointer // SQLite only
}

// Writes counts the writes this process has finished on db (statements
// run on the writer and committed transactions). Caches fed by the change
// feed compare it with what they saw last: when it moved, this process may
// have changed a watched row, and the next read must catch up first.
func (db *DB) Writes() uint64 { return db.writes.Load() }

// Open connects to dsn: a postgres:// or postgresql:// URL, or a SQLite
// file path (optionally prefixed with "sqlite:" or "file:"); see ParseDSN.
func Open(ctx context.Context, dsn string) (*DB, error) {
	dialect, target, err := ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if dialect == Postgres {
		return openPostgres(ctx, target)
	}
	return openSQLite(ctx, target)
}

func openPostgres(ctx context.Context, dsn string) (*DB, error) {
	// Two pools, as on SQLite: code inside a transaction (holding a writer
	// connection) sometimes reads through Read() (cache refreshes, signing
	// keys). With one pool, as many concurrent transactions as it has
	// connections, each waiting for one more, would wait forever; a
	// separate read pool always drains, because pure reads hold their
	// connection only for the statement.
	cfg, err := pgConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open postgres: %w", redactConnError(dsn, err))
	}
	open := func(max int) (*sql.DB, error) {
		db := stdlib.OpenDB(*cfg)
		db.SetMaxOpenConns(max)
		db.SetMaxIdleConns(max)
		db.SetConnMaxIdleTime(5 * time.Minute)
		if err := pingPostgres(ctx, db.PingContext, cfg, dsn); err != nil {
			db.Close()
			return nil, err
		}
		return db, nil
	}
	w, err := open(20)
	if err != nil {
		return nil, err
	}
	r, err := open(10)
	if err != nil {
		w.Close()
		return nil, err
	}
	return newDB(w, r, Postgres), nil
}

// busyTimeout is how long a SQLite connection waits for another
// process's lock (the CLI writing while a server runs) before it fails.
const busyTimeout = 5 * time.Second

// createPrivate creates a new database file that only its owner may read:
// it holds hashed tokens and sealed secrets, and SQLite gives its -wal and
// -shm files the database file's permissions. An empty file is an empty
// database. A file that exists keeps the mode its operator gave it.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: create sqlite %s: %w", path, err)
	}
	return f.Close()
}

// openSQLite opens the file at path (ParseDSN's target: no prefix, no query).
func openSQLite(ctx context.Context, path string) (*DB, error) {
	pragmas := url.Values{}
	// The writer does not checkpoint as it commits: the checkpointer does
	// (checkpoint.go).
	for _, p := range []string{"foreign_keys(1)", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()), "journal_mode(WAL)", "synchronous(NORMAL)",
		"wal_autocheckpoint(0)", fmt.Sprintf("journal_size_limit(%d)", walSizeLimit)} {
		pragmas.Add("_pragma", p)
	}
	// _txlock=immediate takes the write lock at BEGIN, so a transaction never
	// fails later when it upgrades from reader to writer.
	wq := pragmas.Encode() + "&_txlock=immediate"
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	w, err := sql.Open("sqlite", "file:"+path+"?"+wq)
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("store: ping sqlite %s: %w", path, err)
	}
	rp := url.Values{}
	for _, p := range []string{"foreign_keys(1)", "busy_timeout(5000)", "query_only(1)"} {
		rp.Add("_pragma", p)
	}
	r, err := sql.Open("sqlite", "file:"+path+"?"+rp.Encode())
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("store: open sqlite reader: %w", err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	db := newDB(w, r, SQLite)
	db.ckpt = db.startCheckpoints(ckptInterval, ckptRestartPages)
	return db, nil
}

func newDB(w, r *sql.DB, d Dialect) *DB {
	db := &DB{w: w, r: r, dialect: d}
	if d == SQLite {
		db.wc, db.rc = newStmtCache(w), newStmtCache(r)
	}
	db.wq, db.rq = pooled{pool: w, cache: db.wc}, pooled{pool: r, cache: db.rc}
	return db
}

// Dialect reports the engine.
func (db *DB) Dialect() Dialect { return db.dialect }

// LockRow holds the row of table whose keyColumn is key until the
// transaction q ends, for a write computed from reads made after it (a
// summary rebuilt from other tables, fields written back as read): a
// concurrent writer holding the row
// commits first, and those reads see what it wrote. On PostgreSQL (READ
// COMMITTED) that is FOR NO KEY UPDATE, the lock an UPDATE of the row
// takes, which inserts referencing the row (foreign key checks) do not
// wait for. SQLite has one writer: a read inside the write transaction is
// already current, and only checks that the row is there.
//
// A row that is not there (never was, or a concurrent deletion committed
// while the lock waited) is ErrNotFound: a caller that locks a parent
// before inserting under it must not carry on to an insert that fails its
// foreign key. Callers whose next read answers a missing row in its own
// words ignore ErrNotFound and let that read answer.
func (db *DB) LockRow(ctx context.Context, q Querier, table, keyColumn, key string) error {
	lock := ` FOR NO KEY UPDATE`
	if db.dialect != Postgres {
		lock = ``
	}
	if err := holdRow(ctx, q, table, keyColumn, key, lock); err != nil {
		return fmt.Errorf("store: lock %s %s: %w", table, key, err)
	}
	return nil
}

// ShareRow is LockRow for a transaction that only reads under the row:
// many may hold it at once, and a LockRow of the row waits until they
// end (and they wait for it). On PostgreSQL that is FOR SHARE, which
// conflicts with FOR NO KEY UPDATE; on SQLite, as for LockRow, the one
// writer already orders them. A missing row is ErrNotFound, as for
// LockRow.
func (db *DB) ShareRow(ctx context.Context, q Querier, table, keyColumn, key string) error {
	lock := ` FOR SHARE`
	if db.dialect != Postgres {
		lock = ``
	}
	if err := holdRow(ctx, q, table, keyColumn, key, lock); err != nil {
		return fmt.Errorf("store: share %s %s: %w", table, key, err)
	}
	return nil
}

// holdRow selects the row with lock (a locking clause, or none) and
// reports ErrNotFound when there is none.
func holdRow(ctx context.Context, q Querier, table, keyColumn, key, lock string) error {
	var one int
	return MapError(q.QueryRowContext(ctx, `SELECT 1 FROM `+table+` WHERE `+keyColumn+` = $1`+lock, key).Scan(&one))
}

// Close closes every connection.
func (db *DB) Close() error {
	if db.ckpt != nil {
		db.ckpt.close()
	}
	db.wc.close()
	db.rc.close()
	err := db.w.Close()
	if db.r != db.w {
		err = errors.Join(err, db.r.Close())
	}
	return err
}

// Ping checks that the database answers (for /readyz).
func (db *DB) Ping(ctx context.Context) error { return db.r.PingContext(ctx) }

// ExecContext runs a write on the writer.
func (db *DB) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	res, err := db.writer().ExecContext(ctx, q, args...)
	db.writes.Add(1)
	return res, MapError(err)
}

// QueryContext runs a statement on the writer connection. Statements with
// RETURNING must go through here or a Tx; Read() is for pure reads.
func (db *DB) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	rows, err := db.writer().QueryContext(ctx, q, args...)
	db.writes.Add(1)
	return rows, MapError(err)
}

// QueryRowContext runs a single-row statement on the writer connection.
// The write counter moves before the row is scanned; a statement whose
// effect only commits at Scan (SQLite RETURNING) is still seen by the next
// poll of the change feed, within its interval.
func (db *DB) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	defer db.writes.Add(1)
	return db.writer().QueryRowContext(ctx, q, args...)
}

func (db *DB) writer() *pooled { return &db.wq }

// Read returns the read pool, for pure reads on hot paths (session
// authentication) that must not queue behind SQLite's single writer.
func (db *DB) Read() Querier { return &db.rq }

// ReadConn reserves one read connection until it is closed, waiting for
// one while ctx lasts: for a caller that bounds its statements' time
// apart from the wait for a connection (the change feed), which a busy
// pool lengthens without the database being any slower to answer.
func (db *DB) ReadConn(ctx context.Context) (*sql.Conn, error) {
	c, err := db.rq.pool.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: read connection: %w", err)
	}
	return c, nil
}

// ReadPoolBusy reports whether every read connection is in use, so that
// a caller that waited for one can tell a loaded pool (wait longer) from
// a connection handed out at once whose check never answered (on
// PostgreSQL the driver pings a connection idle for over a second before
// handing it out).
func (db *DB) ReadPoolBusy() bool {
	s := db.rq.pool.Stats()
	return s.MaxOpenConnections > 0 && s.InUse >= s.MaxOpenConnections
}

// tx is a transaction that can run work after it commits.
type tx struct {
	*sql.Tx
	cache *stmtCache // the writer's prepared statements
	after []func() error
}

// AfterCommit runs fn once q's transaction has committed (and never if it
// rolls back); outside a transaction it runs fn at once. Slow side effects
// such as calling an SMS gateway belong here: inside a transaction they
// would hold SQLite's single writer for their whole duration.
func AfterCommit(q Querier, fn func()) {
	if t, ok := q.(*tx); ok {
		t.after = append(t.after, func() error { fn(); return nil })
		return
	}
	fn()
}

// Finish runs fn once q's transaction has committed, and Tx returns fn's
// error (the transaction stays committed); outside a transaction it runs
// fn at once and returns its error. It is for CPU work whose result only
// the answer needs and which cannot fail once its inputs were checked
// inside the transaction, such as signing a session JWT with a key read
// there: doing it after the commit keeps it off SQLite's single writer.
func Finish(q Querier, fn func() error) error {
	if t, ok := q.(*tx); ok {
		t.after = append(t.after, fn)
		return nil
	}
	return fn()
}

// Tx runs fn in a transaction, committing if fn returns nil, then runs the
// work registered with AfterCommit. On PostgreSQL a transaction chosen as
// a deadlock victim or failing serialization is retried from the start
// (fn runs again, so it must only touch the database and its own
// results), a few times with a short growing pause.
func (db *DB) Tx(ctx context.Context, fn func(q Querier) error) error {
	for attempt := 1; ; attempt++ {
		err := db.tx(ctx, fn)
		if err == nil || !retryable(err) || attempt == txAttempts {
			return err
		}
		select {
		case <-time.After(time.Duration(attempt*attempt) * 5 * time.Millisecond):
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		}
	}
}

// txAttempts bounds Tx's retries of deadlocked or serialization-failed
// transactions.
const txAttempts = 5

// retryable reports a PostgreSQL error that a fresh run of the same
// transaction can succeed after: serialization_failure, deadlock_detected.
func retryable(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40001" || pg.Code == "40P01")
}

func (db *DB) tx(ctx context.Context, fn func(q Querier) error) error {
	sqlTx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", MapError(err))
	}
	tx := &tx{Tx: sqlTx, cache: db.wc}
	if err := fn(tx); err != nil {
		if rb := tx.Rollback(); rb != nil && !errors.Is(rb, sql.ErrTxDone) {
			return errors.Join(MapError(err), fmt.Errorf("store: rollback: %w", rb))
		}
		return MapError(err)
	}
	err = tx.Commit()
	db.writes.Add(1)
	if err != nil {
		return fmt.Errorf("store: commit: %w", MapError(err))
	}
	if db.dialect == SQLite {
		// The commit handed SQLite's one writer connection to the next
		// waiting transaction, and the runtime queued that goroutine to run
		// next on this P, but only once this one blocks. The work after a
		// commit can be long (a login signs its session JWT, ~1 ms), and the
		// writer sat idle, owned by a goroutine that was not running:
		// yielding lets it start now. Under email-code load this halved the
		// wait for the writer (~8.5 to ~4 ms) in alternating A/B runs.
		runtime.Gosched()
	}
	var errs []error
	for _, fn := range tx.after {
		if err := fn(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// MapError translates driver errors into ErrNotFound, ErrConflict and
// ErrParentGone so domain code never inspects driver types. The mapped error wraps err
// whole, not only the driver error found in it: Tx maps what its callback
// returns, and a catalogue error wrapping a unique violation
// (duplicate_member_email) must stay the answer.
func MapError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict) || errors.Is(err, ErrParentGone) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "23505": // unique_violation
			return fmt.Errorf("%w: %s: %w", ErrConflict, pg.ConstraintName, err)
		case "23503": // foreign_key_violation
			return fmt.Errorf("%w: %s: %w", ErrParentGone, pg.ConstraintName, err)
		}
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		switch lite.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %w", ErrConflict, err)
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return fmt.Errorf("%w: %w", ErrParentGone, err)
		}
	}
	return err
}

// Millis converts a time to the BIGINT milliseconds stored in the database.
func Millis(t time.Time) int64 { return t.UnixMilli() }

// Time converts stored milliseconds back to a UTC time.
func Time(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
