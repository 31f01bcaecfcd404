// Package keyset is the keyset paging every search shares (organizations,
// members, connected apps, M2M clients): rows in (created_at, id) order, an
// opaque cursor naming the last row of a page, and the limit rule. Rows
// created or deleted between two calls never shift a page, so no row is
// skipped or repeated.
//
// The order of ids must be decided in one place per search. Read leaves
// both the order and the cursor comparison to the database (one
// collation, whatever it is, and the search's index serves both). A
// search that filters in Go pages with Slice, which orders and compares
// in Go: ids taken in the database's ORDER BY would follow the column's
// collation, which on PostgreSQL is often a locale's ("Client-B" between
// "client-a" and "client-C"), while Go compares bytes, and rows created
// in one millisecond would be skipped or repeated.
package keyset

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"slices"
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

// Compare orders two rows' positions as Go-side paging does: by
// created_at, then by id byte for byte.
func Compare(a, b Cursor) int {
	return cmp.Or(cmp.Compare(a.CreatedAt, b.CreatedAt), strings.Compare(a.ID, b.ID))
}

// Before reports whether a row at (createdAt, id) comes at or before c in
// Compare's order; a nil cursor is before every row.
func (c *Cursor) Before(createdAt int64, id string) bool {
	return c != nil && Compare(Cursor{CreatedAt: createdAt, ID: id}, *c) <= 0
}

// Slice pages a search that filters in Go: given every matching row, in
// any order, it sorts them in Compare's order (items is sorted in place)
// and returns the page after `after` and the cursor of the next one (nil
// on the last page).
func Slice[T any](items []T, key func(T) Cursor, after *Cursor, limit int) (page []T, next *string) {
	slices.SortFunc(items, func(a, b T) int { return Compare(key(a), key(b)) })
	from := len(items)
	if i := slices.IndexFunc(items, func(it T) bool { k := key(it); return !after.Before(k.CreatedAt, k.ID) }); i >= 0 {
		from = i
	}
	to := min(from+limit, len(items))
	page = append(make([]T, 0, to-from), items[from:to]...)
	if to < len(items) && len(page) > 0 {
		n := key(page[len(page)-1]).Encode()
		next = &n
	}
	return page, next
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
