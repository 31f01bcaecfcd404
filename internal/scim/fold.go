package scim

import (
	"context"
	"encoding/json"
	"fmt"
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

// foldBatch bounds the rows FoldAttributes reads at a time.
const foldBatch = 500

// FoldAttributes fills attributes_folded for the registrations written
// before the column existed (scim migration 0004), so filters on their
// attributes find them. Start-up and `latchkey migrate` run it after the
// migrations (app.MigrateDB); once every row is folded it is one indexed
// lookup that finds nothing. It returns how many rows it folded.
func FoldAttributes(ctx context.Context, db *store.DB) (int, error) {
	n := 0
	for {
		var batch [][2]string
		err := db.Tx(ctx, func(q store.Querier) error {
			batch = batch[:0]
			rows, err := q.QueryContext(ctx, `SELECT registration_id, attributes FROM scim_registrations
				WHERE attributes_folded IS NULL LIMIT `+fmt.Sprint(foldBatch))
			if err != nil {
				return err
			}
			for rows.Next() {
				var id, attrs string
				if err := rows.Scan(&id, &attrs); err != nil {
					rows.Close()
					return err
				}
				batch = append(batch, [2]string{id, attrs})
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			for _, r := range batch {
				// Only a row still unfolded: a write meanwhile folded its own.
				if _, err := q.ExecContext(ctx, `UPDATE scim_registrations SET attributes_folded = $1
					WHERE registration_id = $2 AND attributes_folded IS NULL`, foldedAttributes(r[1]), r[0]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return n, fmt.Errorf("scim: fold attributes: %w", err)
		}
		n += len(batch)
		if len(batch) < foldBatch {
			return n, nil
		}
	}
}
