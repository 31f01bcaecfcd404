package scim

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/store"
)

// fold is the case-insensitive form of an attribute that is not
// caseExact, computed here and never by the database: SQLite's lower()
// folds ASCII only and PostgreSQL's follows the database's locale, so a
// filter folded in SQL finds "JOSÉ MÜLLER" by "müller" on one engine and
// not the other. Every folded column (user_name_key, display_name_key,
// attributes_folded) and every filter value compared with one go through
// it, so both sides always fold alike.
func fold(s string) string { return strings.ToLower(s) }

// foldedKeys are the top-level attributes of a stored user that filters
// read from attributes_folded (filter_attrs.go): its simple text
// attributes, name, the multi-valued attributes a value filter can see,
// and the enterprise extension. The rest (userName, externalId, which
// have columns, and values no filter reads) are left out of the copy.
var foldedKeys = func() map[string]bool {
	keys := map[string]bool{"name": true, schemaEnterprise: true}
	for _, k := range userTextKeys {
		keys[k] = true
	}
	for _, v := range userValues {
		keys[v.key] = true
	}
	return keys
}()

// foldedAttributes is the scim_registrations.attributes_folded of the
// stored attributes attrs (a user as JSON): the attributes filters read,
// every string folded, booleans (primary) as they are. Attributes that
// cannot be read fold to an empty object, which no filter matches.
func foldedAttributes(attrs string) string {
	var doc map[string]any
	if err := json.Unmarshal([]byte(attrs), &doc); err != nil {
		return "{}"
	}
	for k := range doc {
		if !foldedKeys[k] {
			delete(doc, k)
		}
	}
	if ext, ok := doc[schemaEnterprise].(map[string]any); ok {
		delete(ext, "manager") // not filterable
	}
	return mustJSON(foldStrings(doc))
}

// foldStrings folds every string in a decoded JSON value, keeping the
// object keys as they are.
func foldStrings(v any) any {
	switch x := v.(type) {
	case string:
		return fold(x)
	case map[string]any:
		for k, e := range x {
			x[k] = foldStrings(e)
		}
	case []any:
		for i, e := range x {
			x[i] = foldStrings(e)
		}
	}
	return v
}

// FoldAttributes fills attributes_folded for the registrations written
// before the column existed (scim migration 0004), so filters on their
// attributes find them. Start-up and `latchkey migrate` run it after the
// migrations (app.MigrateDB); once every row is folded it is one indexed
// read that finds nothing. It returns how many rows it folded.
func FoldAttributes(ctx context.Context, db *store.DB) (int, error) {
	return store.Backfill{
		Table:  "scim_registrations",
		Key:    "registration_id",
		Source: "attributes",
		Target: "attributes_folded",
		Derive: foldedAttributes,
	}.Run(ctx, db)
}

// dupKeySep joins a group's folded name and its id into the key of a
// group whose name another, older group of its connection shares
// (FoldGroupNames). A unit separator: no name a person types holds one.
const dupKeySep = "\x1f"

// groupKeyIndex is the unique index of folded group names.
const groupKeyIndex = "scim_groups_name_key"

// FoldGroupNames folds the group name keys that scim migration 0005
// marked unfolded (”), and makes them unique per connection. Start-up
// and `latchkey migrate` run it after the migrations (app.MigrateDB).
//
// Names that differ only in case used to be distinct groups, and are
// one key now: of those, the oldest group (by creation, then id) keeps
// its name's key and each other gets the key joined with its own id
// (dupKeySep), so every group still exists, answers by id and its
// filters, and the identity provider can rename or delete it. It all
// happens in one transaction with the unique index's creation, the
// groups' writers held off (on PostgreSQL, a table lock; SQLite's single
// writer does the same), so no duplicate can come between the settling
// and the index. Once the index exists and no key is unfolded it is two
// lookups. It returns how many keys it changed.
func FoldGroupNames(ctx context.Context, db *store.DB) (int, error) {
	done, err := groupKeysDone(ctx, db.Read(), db.Dialect())
	if err != nil || done {
		return 0, wrapFold(err)
	}
	n := 0
	err = db.Tx(ctx, func(q store.Querier) error {
		n = 0
		if db.Dialect() == store.Postgres {
			// Blocks group writes, and another replica's pass, until the
			// index exists; reads go on.
			if _, err := q.ExecContext(ctx, `LOCK TABLE scim_groups IN SHARE ROW EXCLUSIVE MODE`); err != nil {
				return err
			}
		}
		indexed, err := groupKeyIndexed(ctx, q, db.Dialect())
		if err != nil {
			return err
		}
		// Without the index every connection is settled: a key may repeat
		// anywhere. With it, only connections with unfolded keys.
		cond := ``
		if indexed {
			cond = ` WHERE display_name_key = ''`
		}
		conns, err := store.Strings(ctx, q, `SELECT DISTINCT connection_id FROM scim_groups`+cond)
		if err != nil {
			return err
		}
		if indexed && len(conns) == 0 {
			return nil // another replica's pass finished first
		}
		// Settling may swap keys between groups; the index comes back once
		// they are all distinct.
		if _, err := q.ExecContext(ctx, `DROP INDEX IF EXISTS `+groupKeyIndex); err != nil {
			return err
		}
		for _, c := range conns {
			m, err := settleGroupKeys(ctx, q, c)
			if err != nil {
				return err
			}
			n += m
		}
		_, err = q.ExecContext(ctx, `CREATE UNIQUE INDEX `+groupKeyIndex+` ON scim_groups (connection_id, display_name_key)`)
		return err
	})
	return n, wrapFold(err)
}

func wrapFold(err error) error {
	if err != nil {
		return fmt.Errorf("scim: fold group names: %w", err)
	}
	return nil
}

// groupKeysDone reports whether the unique index exists and no key is
// unfolded (the partial index scim_groups_name_unfolded finds them).
func groupKeysDone(ctx context.Context, q store.Querier, d store.Dialect) (bool, error) {
	indexed, err := groupKeyIndexed(ctx, q, d)
	if err != nil || !indexed {
		return false, err
	}
	var unfolded int
	err = q.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM scim_groups WHERE display_name_key = '' LIMIT 1) u`).Scan(&unfolded)
	return unfolded == 0, err
}

// groupKeyIndexed reports whether the unique index of folded names exists.
func groupKeyIndexed(ctx context.Context, q store.Querier, d store.Dialect) (bool, error) {
	query := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = $1`
	if d == store.Postgres {
		query = `SELECT COUNT(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1`
	}
	var n int
	err := q.QueryRowContext(ctx, query, groupKeyIndex).Scan(&n)
	return n > 0, err
}

// settleGroupKeys gives every group of connection conn its folded name's
// key, the oldest of those sharing one keeping it and the others a
// distinct key (FoldGroupNames), and returns how many keys it changed.
// The order is computed here, not by SQL, whose order of ids follows
// PostgreSQL's collation.
func settleGroupKeys(ctx context.Context, q store.Querier, conn string) (int, error) {
	type row struct {
		id, name, key string
		created       int64
	}
	rows, err := q.QueryContext(ctx, `SELECT group_id, display_name, display_name_key, created_at FROM scim_groups
		WHERE connection_id = $1`, conn)
	if err != nil {
		return 0, err
	}
	var gs []row
	for rows.Next() {
		var g row
		if err := rows.Scan(&g.id, &g.name, &g.key, &g.created); err != nil {
			rows.Close()
			return 0, err
		}
		gs = append(gs, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	slices.SortFunc(gs, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.created, b.created), strings.Compare(a.id, b.id))
	})
	keys := make([]string, len(gs))
	taken := map[string]bool{}
	for i, g := range gs {
		if k := fold(g.name); k != "" && !taken[k] {
			keys[i], taken[k] = k, true
		}
	}
	for i, g := range gs {
		if keys[i] != "" {
			continue
		}
		k := fold(g.name) + dupKeySep + g.id
		for taken[k] {
			k += dupKeySep
		}
		keys[i], taken[k] = k, true
	}
	n := 0
	for i, g := range gs {
		if keys[i] == g.key {
			continue
		}
		if _, err := q.ExecContext(ctx, `UPDATE scim_groups SET display_name_key = $1 WHERE group_id = $2`, keys[i], g.id); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
