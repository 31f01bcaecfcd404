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
func (s *Store) Search(ctx context.Context, projectID, cursor string, limit int, match func(*Client) bool) (*Page, error) {
	limit, err := keyset.Limit(limit)
	if err != nil {
		return nil, err
	}
	after, err := keyset.Decode(cursor)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.Read().QueryContext(ctx, `SELECT `+columns+` FROM m2m_clients WHERE project_id = $1
		ORDER BY created_at, client_id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("m2m: search: %w", err)
	}
	defer rows.Close()
	p := &Page{Clients: []*Client{}}
	for rows.Next() {
		c, err := scan(rows)
		if err != nil {
			return nil, err
		}
		if !match(c) {
			continue
		}
		p.Total++
		if after.Before(store.Millis(c.CreatedAt), c.ClientID) {
			continue
		}
		if len(p.Clients) < limit {
			p.Clients = append(p.Clients, c)
		} else if p.NextCursor == nil {
			last := p.Clients[limit-1]
			next := keyset.Cursor{CreatedAt: store.Millis(last.CreatedAt), ID: last.ClientID}.Encode()
			p.NextCursor = &next
		}
	}
	return p, rows.Err()
}
