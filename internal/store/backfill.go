package store

import (
	"context"
	"errors"
	"fmt"
)

// Backfill fills a column derived in Go from another column of the same
// row where it is still NULL: rows written before the derived column
// existed, or by an older release during a rolling deploy. A derivation
// the database cannot compute alike on both engines (case folding,
// JSON rewriting) is kept in Go this way, and every package that has one
// runs the same loop.
//
// Table, Key, Source and Target are names from the calling package's
// own schema, never input.
type Backfill struct {
	Table  string
	Key    string // the primary key column
	Source string // the column the value is derived from
	Target string // the derived column, NULL while unfilled
	// Derive computes Target from Source.
	Derive func(source string) string
}

// backfillBatch bounds the rows one transaction of Run reads and writes,
// so SQLite's single writer is held only briefly.
const backfillBatch = 500

// Run fills Target where it is NULL and returns how many rows it filled.
// Once every row is filled it is one read outside any write transaction,
// which a partial index on the unfilled rows (WHERE Target IS NULL) keeps
// from scanning the table.
//
// A row is written only while it is still unfilled and its Source is still
// the value read: a write meanwhile that filled its own Target wins, and
// one that changed Source without filling Target (an older replica) leaves
// the row for the next run rather than taking a value derived from the
// stale Source.
func (b Backfill) Run(ctx context.Context, db *DB) (int, error) {
	var none int
	err := db.Read().QueryRowContext(ctx, `SELECT 1 FROM `+b.Table+` WHERE `+b.Target+` IS NULL LIMIT 1`).Scan(&none)
	if errors.Is(MapError(err), ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, b.wrap(err)
	}
	filled := 0
	for {
		var batch [][2]string
		n := 0
		err := db.Tx(ctx, func(q Querier) error {
			var err error
			if batch, err = b.unfilled(ctx, q); err != nil {
				return err
			}
			n = 0
			for _, r := range batch {
				res, err := q.ExecContext(ctx, `UPDATE `+b.Table+` SET `+b.Target+` = $1
					WHERE `+b.Key+` = $2 AND `+b.Target+` IS NULL AND `+b.Source+` = $3`,
					b.Derive(r[1]), r[0], r[1])
				if err != nil {
					return err
				}
				if k, _ := res.RowsAffected(); k > 0 {
					n++
				}
			}
			return nil
		})
		if err != nil {
			return filled, b.wrap(err)
		}
		filled += n
		// A short batch is the last; so is a batch none of whose rows could
		// be written (each changed meanwhile by an older replica), which
		// the next run takes up rather than this one reading it again.
		if len(batch) < backfillBatch || n == 0 || ctx.Err() != nil {
			return filled, ctx.Err()
		}
	}
}

// unfilled reads up to backfillBatch rows whose Target is NULL, as pairs of
// key and Source.
func (b Backfill) unfilled(ctx context.Context, q Querier) ([][2]string, error) {
	return Pairs(ctx, q, `SELECT `+b.Key+`, `+b.Source+` FROM `+b.Table+`
		WHERE `+b.Target+` IS NULL LIMIT `+fmt.Sprint(backfillBatch))
}

func (b Backfill) wrap(err error) error {
	return fmt.Errorf("store: backfill %s.%s: %w", b.Table, b.Target, err)
}
