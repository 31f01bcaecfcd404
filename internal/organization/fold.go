package organization

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/sweeper"
)

// foldName is the case-insensitive key of an organization name, computed
// here rather than by the database so that SQLite (whose LOWER() folds
// ASCII only) and PostgreSQL (whose LOWER() follows the database's locale)
// answer a name search alike. Each letter becomes the lower case of the
// first letter of its simple case-folding orbit (unicode.SimpleFold, the
// equivalence strings.EqualFold uses), so "Ölwerk", "ÖLWERK" and
// "ölwerk" share a key, as do the Kelvin sign and K, or ς, σ and Σ. Full
// folding (ß to ss) is not applied: "STRASSE" does not find "Straße".
func foldName(s string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return unicode.ToLower(least)
	}, s)
}

// foldBatch bounds the rows FoldNames reads at a time.
const foldBatch = 500

// FoldNames fills organization_name_folded where it is NULL, so name
// searches find those organizations: rows written before the column
// existed (store migration 0103), and rows written during a rolling deploy
// by a replica of a release from before it, whose inserts leave the column
// NULL and whose renames store migration 0112's trigger sets back to NULL.
// Start-up and `latchkey migrate` run it after the migrations, and every
// sweep runs it (Sweeps), so such a row is not left unsearchable until the
// next start. Once every row is folded it is one indexed read (the partial
// index of 0103) that finds nothing, outside any write transaction. It
// returns how many rows it folded.
func FoldNames(ctx context.Context, db *store.DB) (int, error) {
	var none int
	err := db.Read().QueryRowContext(ctx, `SELECT 1 FROM organizations WHERE organization_name_folded IS NULL LIMIT 1`).Scan(&none)
	if errors.Is(store.MapError(err), store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("organization: fold names: %w", err)
	}
	n := 0
	for {
		var batch [][2]string
		folded := 0
		err := db.Tx(ctx, func(q store.Querier) error {
			batch, folded = batch[:0], 0
			rows, err := q.QueryContext(ctx, `SELECT organization_id, organization_name FROM organizations
				WHERE organization_name_folded IS NULL LIMIT `+fmt.Sprint(foldBatch))
			if err != nil {
				return err
			}
			for rows.Next() {
				var id, name string
				if err := rows.Scan(&id, &name); err != nil {
					rows.Close()
					return err
				}
				batch = append(batch, [2]string{id, name})
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			for _, r := range batch {
				// Only a row still unfolded and still of the name read: a
				// rename meanwhile wrote its own key, or (by an older
				// replica) left the row NULL for the next pass, and the
				// key of the name read would be the stale one.
				res, err := q.ExecContext(ctx, `UPDATE organizations SET organization_name_folded = $1
					WHERE organization_id = $2 AND organization_name_folded IS NULL AND organization_name = $3`,
					foldName(r[1]), r[0], r[1])
				if err != nil {
					return err
				}
				if k, _ := res.RowsAffected(); k > 0 {
					folded++
				}
			}
			return nil
		})
		if err != nil {
			return n, fmt.Errorf("organization: fold names: %w", err)
		}
		n += folded
		if len(batch) < foldBatch || ctx.Err() != nil {
			return n, ctx.Err()
		}
	}
}

// Sweeps is FoldNames as a sweep (package sweeper), so the server runs it
// every LATCHKEY_SWEEP_INTERVAL: the organizations an older replica wrote
// during a rolling deploy become searchable by name within an interval.
func (s *Store) Sweeps() []sweeper.Sweepable { return []sweeper.Sweepable{foldSweep{s.db}} }

type foldSweep struct{ db *store.DB }

func (foldSweep) Name() string { return "organization_names_folded" }

func (f foldSweep) Sweep(ctx context.Context, _ time.Time) (int64, error) {
	n, err := FoldNames(ctx, f.db)
	return int64(n), err
}
