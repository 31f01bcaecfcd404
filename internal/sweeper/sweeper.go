// Package sweeper deletes what has outlived its use: expired sessions,
// intermediate sessions, magic links, one-time codes and reset tokens, old
// telemetry events and audit entries, and finished rate-limit windows.
// Every package or module that owns such rows offers them as Sweepables;
// the server runs them every LATCHKEY_SWEEP_INTERVAL. Deletes are batched
// so a large backlog never holds the (SQLite) writer for long, and are
// idempotent, so every replica may sweep.
package sweeper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/store"
)

// Sweepable deletes its expired rows as of now and reports how many.
type Sweepable interface {
	Name() string
	Sweep(ctx context.Context, now time.Time) (int64, error)
}

// Batch is the most rows one delete statement removes.
const Batch = 1000

// Expired sweeps rows of Table whose Column (Unix milliseconds) is older
// than now minus Keep, and that match Where when it is set. Without a
// Column, Where alone selects the rows, which are garbage as soon as it
// matches them (the rows of deleted members), and there is no $1.
type Expired struct {
	DB     *store.DB
	Table  string        // e.g. "member_sessions"
	Key    string        // primary key, for batching; a composite one comma-separated ("bucket, window_start")
	Column string        // expires_at, created_at...; "" for none
	Keep   time.Duration // how long past Column a row is kept
	Where  string        // extra condition, e.g. "verified_at IS NULL"; a fixed string, never input; $1 is the cutoff
	Label  string        // the sweep's name in the counts when a table has two; "" is Table
}

var ident = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// Name is the label, or the table swept.
func (e Expired) Name() string {
	if e.Label != "" {
		return e.Label
	}
	return e.Table
}

// Statement is the delete of one batch, with the cutoff as $1. A
// composite key is matched as a row value, which both engines accept: a
// batch by one of its columns alone could take a live row sharing that
// column's value with an expired one.
func (e Expired) Statement() (string, error) {
	cols := strings.Split(e.Key, ",")
	for i, c := range cols {
		cols[i] = strings.TrimSpace(c)
		if !ident.MatchString(cols[i]) {
			return "", fmt.Errorf("sweeper: bad table spec %+v", e)
		}
	}
	if !ident.MatchString(e.Table) || (e.Column == "" && e.Where == "") || (e.Column != "" && !ident.MatchString(e.Column)) {
		return "", fmt.Errorf("sweeper: bad table spec %+v", e)
	}
	key := strings.Join(cols, ", ")
	match := key
	if len(cols) > 1 {
		match = "(" + key + ")"
	}
	var cond string
	switch {
	case e.Column == "":
		cond = e.Where
	case e.Where == "":
		cond = e.Column + ` < $1`
	default:
		cond = e.Column + ` < $1 AND (` + e.Where + `)`
	}
	return `DELETE FROM ` + e.Table + ` WHERE ` + match + ` IN (SELECT ` + key + ` FROM ` + e.Table +
		` WHERE ` + cond + ` LIMIT ` + fmt.Sprint(Batch) + `)`, nil
}

// Sweep deletes the expired rows in batches.
func (e Expired) Sweep(ctx context.Context, now time.Time) (int64, error) {
	q, err := e.Statement()
	if err != nil {
		return 0, err
	}
	var args []any
	if e.Column != "" {
		args = append(args, store.Millis(now.Add(-e.Keep)))
	}
	var total int64
	for {
		res, err := e.DB.ExecContext(ctx, q, args...)
		if err != nil {
			return total, fmt.Errorf("sweeper: %s: %w", e.Table, err)
		}
		n, _ := res.RowsAffected()
		total += n
		if n < Batch || ctx.Err() != nil {
			return total, ctx.Err()
		}
	}
}

// Sweep runs items once as of now and reports the rows they removed;
// packages that offer their Sweepables also sweep with it on their own
// (tests, a maintenance call).
func Sweep(ctx context.Context, now time.Time, items ...Sweepable) (int64, error) {
	var total int64
	for _, it := range items {
		n, err := it.Sweep(ctx, now)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Func adapts a package's own sweep function.
type Func struct {
	Label string
	Fn    func(ctx context.Context) error
}

// Name is the label.
func (f Func) Name() string { return f.Label }

// Sweep runs the function; it does not count rows.
func (f Func) Sweep(ctx context.Context, _ time.Time) (int64, error) { return 0, f.Fn(ctx) }

// Sweeper runs a set of Sweepables.
type Sweeper struct {
	items []Sweepable
	clock clock.Clock
	log   *slog.Logger
}

// New returns a sweeper over items.
func New(c clock.Clock, log *slog.Logger, items ...Sweepable) *Sweeper {
	return &Sweeper{items: items, clock: c, log: log}
}

// Items are the Sweepables the sweeper runs.
func (s *Sweeper) Items() []Sweepable { return s.items }

// Once sweeps everything once; one failing item does not stop the others.
func (s *Sweeper) Once(ctx context.Context) (map[string]int64, error) {
	now := s.clock.Now()
	counts := map[string]int64{}
	var errs []error
	for _, it := range s.items {
		n, err := it.Sweep(ctx, now)
		counts[it.Name()] += n
		if err != nil {
			errs = append(errs, err)
		}
	}
	return counts, errors.Join(errs...)
}

// Run sweeps every interval until ctx ends, logging what it removed.
func (s *Sweeper) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			counts, err := s.Once(ctx)
			if err != nil && ctx.Err() == nil {
				s.log.Warn("sweep failed", "error", err)
			}
			var total int64
			for _, n := range counts {
				total += n
			}
			if total > 0 {
				s.log.Info("swept expired rows", "rows", total)
			}
		}
	}
}
