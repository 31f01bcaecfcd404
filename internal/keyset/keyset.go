// Package keyset is the keyset paging every search shares (organizations,
// members, connected apps, M2M clients): rows in (created_at, id) order, an
// opaque cursor naming the last row of a page, and the limit rule. Rows
// created or deleted between two calls never shift a page, so no row is
// skipped or repeated.
package keyset

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/store"
)

// Limits of a page.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Limit applies the API family's rule: 0 is the default, otherwise 1 to
// MaxLimit.
func Limit(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultLimit, nil
	case n < 0 || n > MaxLimit:
		return 0, apierr.Invalid("limit", fmt.Sprintf("limit must be between 1 and %d.", MaxLimit))
	}
	return n, nil
}

// Cursor is the position after the last row of a page.
type Cursor struct {
	CreatedAt int64 // Unix milliseconds, as stored
	ID        string
}

const version = "c1"

// Encode makes the cursor opaque: clients pass it back unchanged.
func (c Cursor) Encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(version + "|" + strconv.FormatInt(c.CreatedAt, 10) + "|" + c.ID))
}

// Decode reads a cursor made by Encode; "" is the first page (nil).
func Decode(s string) (*Cursor, error) {
	if s == "" {
		return nil, nil
	}
	bad := apierr.Invalid("cursor", "cursor is not a cursor returned by this search.")
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad
	}
	parts := strings.SplitN(string(raw), "|", 3)
	// The id goes into a query: text PostgreSQL refuses is no cursor.
	if len(parts) != 3 || parts[0] != version || parts[2] == "" || !httpapi.Clean(parts[2]) {
		return nil, bad
	}
	at, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return nil, bad
	}
	return &Cursor{CreatedAt: at, ID: parts[2]}, nil
}

// Before reports whether a row at (createdAt, id) comes at or before c,
// for searches that filter in Go; a nil cursor is before every row.
func (c *Cursor) Before(createdAt int64, id string) bool {
	return c != nil && (createdAt < c.CreatedAt || (createdAt == c.CreatedAt && id <= c.ID))
}

// Spec says how to read one kind of row.
type Spec[T any] struct {
	Table, Columns, IDCol string // created_at is the other ordering column
	Scan                  func(interface{ Scan(...any) error }) (T, error)
	Key                   func(T) Cursor
}

// Page is one page of results: Total counts every matching row, Next is
// nil on the last page.
type Page[T any] struct {
	Items []T
	Total int
	Next  *string
}

// Read counts the rows of spec.Table matching where (whose $1..$n are
// args), then reads the page after `after`. It reads one row past the
// limit to learn whether a next page exists without a second query.
func Read[T any](ctx context.Context, q store.Querier, spec Spec[T], where string, args []any, after *Cursor, limit int) (*Page[T], error) {
	p := &Page[T]{Items: []T{}}
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+spec.Table+` WHERE `+where, args...).Scan(&p.Total); err != nil {
		return nil, fmt.Errorf("keyset: %s count: %w", spec.Table, store.MapError(err))
	}
	args = append([]any(nil), args...)
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if after != nil {
		at, id := arg(after.CreatedAt), arg(after.ID)
		where = fmt.Sprintf("(%s) AND (created_at > %s OR (created_at = %s AND %s > %s))", where, at, at, spec.IDCol, id)
	}
	rows, err := q.QueryContext(ctx, `SELECT `+spec.Columns+` FROM `+spec.Table+` WHERE `+where+
		` ORDER BY created_at, `+spec.IDCol+` LIMIT `+arg(limit+1), args...)
	if err != nil {
		return nil, fmt.Errorf("keyset: %s search: %w", spec.Table, store.MapError(err))
	}
	defer rows.Close()
	for rows.Next() {
		it, err := spec.Scan(rows)
		if err != nil {
			return nil, fmt.Errorf("keyset: %s scan: %w", spec.Table, err)
		}
		p.Items = append(p.Items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("keyset: %s search: %w", spec.Table, err)
	}
	if len(p.Items) > limit {
		p.Items = p.Items[:limit]
		next := spec.Key(p.Items[limit-1]).Encode()
		p.Next = &next
	}
	return p, nil
}
