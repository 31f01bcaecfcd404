package store

import (
	"context"
	"database/sql"
)

// Strings runs query through q and returns its rows' one text column, in
// the order the query gives. A query that reads keys to act on them, or a
// set to test against, needs nothing more than this; the scan loop and its
// rows.Err check live here once, so no caller can forget the check and
// take a read cut short by an error for the whole answer.
func Strings(ctx context.Context, q Querier, query string, args ...any) ([]string, error) {
	return collect(ctx, q, query, args, func(r *sql.Rows) (string, error) {
		var s string
		err := r.Scan(&s)
		return s, err
	})
}

// Pairs is Strings for a query of two text columns, usually a row's key
// and the value to work on (a backfill's source, a secret to seal).
func Pairs(ctx context.Context, q Querier, query string, args ...any) ([][2]string, error) {
	return collect(ctx, q, query, args, func(r *sql.Rows) ([2]string, error) {
		var p [2]string
		err := r.Scan(&p[0], &p[1])
		return p, err
	})
}

func collect[T any](ctx context.Context, q Querier, query string, args []any, scan func(*sql.Rows) (T, error)) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
