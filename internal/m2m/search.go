package m2m

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/keyset"
	"github.com/latchkey/latchkey/internal/store"
)

// Page is one page of a search.
type Page struct {
	Clients    []*Client
	Total      int
	NextCursor *string
}

// Search pages through the project's clients that match, oldest first,
// with keyset paging on (created_at, client_id). Filtering happens in Go:
// a project has few M2M clients, and the filters (lists, OR) stay simple.
// So does the order (keyset.Slice): client ids may be the customer's own,
// and the database's collation would order them otherwise than the
// cursor compares them.
func (s *Store) Search(ctx context.Context, projectID, cursor string, limit int, match func(*Client) bool) (*Page, error) {
	limit, err := keyset.Limit(limit)
	if err != nil {
		return nil, err
	}
	after, err := keyset.Decode(cursor)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.Read().QueryContext(ctx, `SELECT `+columns+` FROM m2m_clients WHERE project_id = $1`, projectID)
	if err != nil {
		return nil, fmt.Errorf("m2m: search: %w", err)
	}
	defer rows.Close()
	var matched []*Client
	for rows.Next() {
		c, err := scan(rows)
		if err != nil {
			return nil, err
		}
		if match(c) {
			matched = append(matched, c)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("m2m: search: %w", err)
	}
	p := &Page{Total: len(matched)}
	p.Clients, p.NextCursor = keyset.Slice(matched, func(c *Client) keyset.Cursor {
		return keyset.Cursor{CreatedAt: store.Millis(c.CreatedAt), ID: c.ClientID}
	}, after, limit)
	return p, nil
}
