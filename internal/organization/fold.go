package organization

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/latchkey/latchkey/internal/store"
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

// FoldNames fills organization_name_folded for the organizations written
// before the column existed (store migration 0103), so name searches find
// them. Start-up and `latchkey migrate` run it after the migrations; once
// every row is folded it is one indexed lookup that finds nothing. It
// returns how many rows it folded.
func FoldNames(ctx context.Context, db *store.DB) (int, error) {
	n := 0
	for {
		var batch [][2]string
		err := db.Tx(ctx, func(q store.Querier) error {
			batch = batch[:0]
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
				// Only a row still unfolded: a rename meanwhile wrote its own.
				if _, err := q.ExecContext(ctx, `UPDATE organizations SET organization_name_folded = $1
					WHERE organization_id = $2 AND organization_name_folded IS NULL`, foldName(r[1]), r[0]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return n, fmt.Errorf("organization: fold names: %w", err)
		}
		n += len(batch)
		if len(batch) < foldBatch {
			return n, nil
		}
	}
}
