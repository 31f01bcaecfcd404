package m2m_test

import (
	"context"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/m2m"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// Search filters in Go, so it must order in Go too: the cursor compares
// ids byte for byte, and a PostgreSQL cluster initialised with an en_US
// locale (a common default) orders text case-insensitively first, so
// paging in the database's order skipped rows. M2M clients may bring their
// own ids (migrations), and a bulk import creates many in one millisecond,
// where the id decides the order.
func TestSearchPagingUnderNonCCollation(t *testing.T) {
	db := storetest.Postgres(t)
	ctx := context.Background()
	e := apptest.New(t, db, nil) // runs the modules' migrations
	// As if the cluster's default collation were en-US (ICU).
	if _, err := db.ExecContext(ctx, `ALTER TABLE m2m_clients ALTER COLUMN client_id TYPE TEXT COLLATE "en-US-x-icu"`); err != nil {
		t.Fatalf("collation: %v", err)
	}
	p := e.Project.Project
	st := m2m.NewStore(db, e.Clock) // the fake clock stands still: one millisecond for all
	scopes := []string{"read"}
	for _, id := range []string{"client-a", "Client-B", "client-C"} {
		if _, _, err := st.Create(ctx, p.ID, p.Env, id, "", m2m.Fields{Scopes: &scopes}); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	cursor := ""
	for range 5 {
		page, err := st.Search(ctx, p.ID, cursor, 1, func(*m2m.Client) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page.Clients {
			seen[c.ClientID]++
		}
		if page.NextCursor == nil {
			break
		}
		cursor = *page.NextCursor
	}
	if len(seen) != 3 {
		t.Fatalf("paging one by one returned %v, want each of the 3 clients once", seen)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("client %s returned %d times", id, n)
		}
	}
}
