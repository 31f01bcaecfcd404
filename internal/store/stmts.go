package store

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// Prepared statements, on SQLite. The driver parses every statement it is
// handed unless it was prepared, and parsing was about a fifth of an
// email login's CPU, much of it while holding the one writer. So each
// SQLite pool keeps the statements it runs again and again prepared, by
// their text: the second time a text runs it is prepared in the
// background (never on the request path, where the caller's own
// transaction may hold the writer a prepare would need), and from then on
// it runs prepared, inside a transaction through Tx.StmtContext, which
// reuses the statement already prepared on the connection. Texts built
// per call (IN lists of varying length) stop being added once the cache
// is full. PostgreSQL needs none of this: pgx caches prepared statements
// per connection itself.
type stmtCache struct {
	pool *sql.DB

	mu      sync.Mutex
	stmts   map[string]*sql.Stmt
	seen    map[string]bool // texts run once so far
	pending map[string]bool // texts being prepared
	closed  bool
	hits    atomic.Uint64 // statements run prepared (for tests)

	// The background prepares: close cancels and waits for them, so none
	// touches the database once Close has returned. One still running
	// then would reopen the file's log beside a database being removed
	// (tests' temporary directories failed to delete now and then).
	ctx     context.Context
	cancel  context.CancelFunc
	running sync.WaitGroup
}

// Bounds of the cache: the statements kept, and the texts remembered as
// seen once (forgotten all at once when full).
const (
	maxStmts = 1000
	maxSeen  = 4000
)

func newStmtCache(pool *sql.DB) *stmtCache {
	ctx, cancel := context.WithCancel(context.Background())
	return &stmtCache{pool: pool, stmts: map[string]*sql.Stmt{}, seen: map[string]bool{}, pending: map[string]bool{},
		ctx: ctx, cancel: cancel}
}

// lookup returns q's prepared statement, or nil (run q unprepared) after
// noting that q ran: on its second run, q is prepared in the background.
// A nil cache (PostgreSQL) never has one.
func (c *stmtCache) lookup(q string) *sql.Stmt {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.stmts[q]; st != nil {
		c.hits.Add(1)
		return st
	}
	if c.closed || c.pending[q] || len(c.stmts)+len(c.pending) >= maxStmts {
		return nil
	}
	if !c.seen[q] {
		if len(c.seen) >= maxSeen {
			clear(c.seen)
		}
		c.seen[q] = true
		return nil
	}
	delete(c.seen, q)
	c.pending[q] = true
	c.running.Add(1)
	go c.prepare(q)
	return nil
}

// prepare prepares q on the pool, waiting for a free connection like any
// statement, and keeps it. A text that fails to prepare (it will fail to
// run too) is not kept.
func (c *stmtCache) prepare(q string) {
	defer c.running.Done()
	st, err := c.pool.PrepareContext(c.ctx, q)
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, q)
	if err != nil {
		return
	}
	if c.closed {
		st.Close()
		return
	}
	c.stmts[q] = st
}

// close stops the background prepares and waits for them, then releases
// every prepared statement; later lookups find none.
func (c *stmtCache) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.running.Wait() // outside mu: a finishing prepare takes it
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.stmts {
		st.Close()
		delete(c.stmts, q)
	}
}

// len is how many statements are kept (for tests).
func (c *stmtCache) len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.stmts)
}

// pooled runs statements on a pool, prepared when its cache has them.
type pooled struct {
	pool  *sql.DB
	cache *stmtCache
}

func (p *pooled) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := p.cache.lookup(q); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return p.pool.ExecContext(ctx, q, args...)
}

func (p *pooled) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := p.cache.lookup(q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return p.pool.QueryContext(ctx, q, args...)
}

func (p *pooled) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if st := p.cache.lookup(q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return p.pool.QueryRowContext(ctx, q, args...)
}

// Statements inside a transaction use the writer's prepared statements
// through Tx.StmtContext (the Stmt it returns is closed with the
// transaction; the prepared statement stays on the connection).

func (t *tx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := t.cache.lookup(q); st != nil {
		return t.Tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, q, args...)
}

func (t *tx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := t.cache.lookup(q); st != nil {
		return t.Tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, q, args...)
}

func (t *tx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if st := t.cache.lookup(q); st != nil {
		return t.Tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, q, args...)
}
