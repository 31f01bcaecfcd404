package organization

import (
	"context"
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

// FoldNames fills organization_name_folded where it is NULL, so name
// searches find those organizations: rows written before the column
// existed (store migration 0103), and rows written during a rolling deploy
// by a replica of a release from before it, whose inserts leave the column
// NULL and whose renames store migration 0112's trigger sets back to NULL.
// Start-up and `latchkey migrate` run it after the migrations, and every
// sweep runs it (Sweeps), so such a row is not left unsearchable until the
// next start. Once every row is folded it is one indexed read (the partial
// index of 0103) that finds nothing. It returns how many rows it folded.
func FoldNames(ctx context.Context, db *store.DB) (int, error) {
	return store.Backfill{
		Table:  "organizations",
		Key:    "organization_id",
		Source: "organization_name",
		Target: "organization_name_folded",
		Derive: foldName,
	}.Run(ctx, db)
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
