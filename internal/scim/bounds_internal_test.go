package scim

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/store"
)

// execCounter counts the statements executed through it.
type execCounter struct {
	store.Querier
	n int
}

func (c *execCounter) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	c.n++
	return c.Querier.ExecContext(ctx, q, args...)
}

// Removing members is a statement per batch of removeBatch ids, not one
// per id: a PATCH naming maxGroupMembers ids runs two.
func TestRemoveMembersInBatches(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "groups.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.ExecContext(ctx, `CREATE TABLE scim_group_members (group_id TEXT NOT NULL, member_id TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range maxGroupMembers {
		ids = append(ids, fmt.Sprintf("m%d", i))
		for _, g := range []string{"g1", "g2"} {
			if _, err := db.ExecContext(ctx, `INSERT INTO scim_group_members VALUES ($1, $2)`, g, ids[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	s := &Service{d: Deps{DB: db, Clock: clock.NewFake(time.Unix(0, 0))}}
	q := &execCounter{Querier: db}
	if err := s.setMembers(ctx, q, &conn{ID: "c1"}, "g1", append(ids[1:], "not-a-member"), "remove"); err != nil {
		t.Fatal(err)
	}
	if want := (maxGroupMembers + removeBatch - 1) / removeBatch; q.n != want {
		t.Fatalf("removing %d members ran %d statements, want %d", maxGroupMembers, q.n, want)
	}
	var left []string
	rows, err := db.QueryContext(ctx, `SELECT group_id || '/' || member_id FROM scim_group_members WHERE member_id = 'm0' OR group_id = 'g1'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		left = append(left, s)
	}
	if len(left) != 2 {
		t.Fatalf("left %v, want g1/m0 and g2/m0", left)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM scim_group_members WHERE group_id = 'g2'`).Scan(&n); err != nil || n != maxGroupMembers {
		t.Fatalf("g2 kept %d members (%v), want %d", n, err, maxGroupMembers)
	}
}

// A PATCH's steps are not changed by being applied, so they can be
// applied again to the registration as the transaction reads it: the
// values an operation added are copied, and a later operation's change
// to them does not reach the steps.
func TestPatchStepsApplyAgain(t *testing.T) {
	steps, err := compilePatch([]patchOp{
		{Op: "add", Path: "emails", Value: []any{map[string]any{"type": "work", "Value": "a@acme.test"}}},
		{Op: "replace", Path: `emails[type eq "work"].value`, Value: "b@acme.test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range []*reg{{Attrs: user{UserName: "one@acme.test"}}, {Attrs: user{UserName: "two@acme.test"}}} {
		u, err := patchReg(g, steps).user()
		if err != nil {
			t.Fatal(err)
		}
		if len(u.Emails) != 1 || u.Emails[0].Value != "b@acme.test" || u.UserName != g.Attrs.UserName {
			t.Fatalf("application %d: %+v", i, u)
		}
	}
	if v := steps[0].value.([]any)[0].(map[string]any)["Value"]; v != "a@acme.test" {
		t.Fatalf("the first step's value was changed to %v", v)
	}
}
