package scim

import (
	"context"
	"database/sql"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/latchkey/latchkey/internal/store"
)

// countingQuerier counts the statements run through it.
type countingQuerier struct {
	store.Querier
	n int
}

func (c *countingQuerier) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	c.n++
	return c.Querier.QueryContext(ctx, q, args...)
}

func (c *countingQuerier) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	c.n++
	return c.Querier.QueryRowContext(ctx, q, args...)
}

// A page of groups reads its members in one statement, however many
// groups it holds, and each group keeps its own members in the order they
// joined. (The tables are the columns the query reads; the package's
// HTTP tests run the real schema.)
func TestGroupPageReadsMembersInOneQuery(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "groups.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, stmt := range []string{
		`CREATE TABLE members (member_id TEXT PRIMARY KEY, email_address TEXT NOT NULL)`,
		`CREATE TABLE scim_groups (group_id TEXT PRIMARY KEY, connection_id TEXT NOT NULL)`,
		`CREATE TABLE scim_group_members (group_id TEXT NOT NULL, member_id TEXT NOT NULL, created_at INTEGER NOT NULL)`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	c := &conn{ID: "conn-1"}
	var gs []*group
	for i := 0; i < 50; i++ {
		g := &group{ID: fmt.Sprintf("g%02d", i), Name: fmt.Sprintf("G%d", i)}
		gs = append(gs, g)
		if _, err := db.ExecContext(ctx, `INSERT INTO scim_groups VALUES ($1, $2)`, g.ID, c.ID); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < i%4; j++ { // g00 has none
			mid := fmt.Sprintf("m%d", j)
			if _, err := db.ExecContext(ctx, `INSERT INTO members VALUES ($1, $2) ON CONFLICT DO NOTHING`, mid, mid+"@acme.test"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO scim_group_members VALUES ($1, $2, $3)`, g.ID, mid, 100-j); err != nil {
				t.Fatal(err)
			}
		}
	}
	s := &Service{d: Deps{BaseURL: func() string { return "https://auth.test" }}}
	q := &countingQuerier{Querier: db.Read()}
	docs, err := s.groupResources(ctx, q, httptest.NewRequest("GET", "/Groups", nil), c, gs)
	if err != nil {
		t.Fatal(err)
	}
	if q.n != 1 {
		t.Fatalf("a page of %d groups ran %d statements", len(gs), q.n)
	}
	for i, doc := range docs {
		ms := doc["members"].([]groupRef)
		if doc["id"] != gs[i].ID || len(ms) != i%4 {
			t.Fatalf("group %d: %v", i, doc)
		}
		for k, m := range ms { // joined latest first: m2, m1, m0
			if want := fmt.Sprintf("m%d", i%4-1-k); m.Value != want || m.Display != want+"@acme.test" {
				t.Fatalf("group %d member %d = %+v, want %s", i, k, m, want)
			}
		}
	}
	q.n = 0
	docs, err = s.groupResources(ctx, q, httptest.NewRequest("GET", "/Groups?excludedAttributes=members", nil), c, gs)
	if err != nil || q.n != 0 || docs[3]["members"] != nil {
		t.Fatalf("excluded members: %d statements, %v, %v", q.n, docs[3], err)
	}
}
