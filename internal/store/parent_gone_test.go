package store_test

import (
	"errors"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A write referencing a row that is not there (a parent deleted by a
// concurrent request after this one read it) is store.ErrParentGone on
// both engines, statement by statement and out of Tx, so domains can
// answer it with their catalogue's not-found. Unmapped, it was a driver
// error, answered 500.
func TestForeignKeyViolationIsParentGone(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		insert := `INSERT INTO project_origins (project_id, origin, created_at) VALUES ($1, $2, $3)`
		_, err := db.ExecContext(ctx, insert, "project-gone", "https://a.test", 1)
		if !errors.Is(err, store.ErrParentGone) {
			t.Fatalf("insert under a missing project: %v, want store.ErrParentGone", err)
		}
		if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
			t.Fatalf("insert under a missing project: %v, also a conflict or not-found", err)
		}
		err = db.Tx(ctx, func(q store.Querier) error {
			_, err := q.ExecContext(ctx, insert, "project-gone", "https://a.test", 1)
			return err
		})
		if !errors.Is(err, store.ErrParentGone) {
			t.Fatalf("Tx inserting under a missing project: %v, want store.ErrParentGone", err)
		}
		// A catalogue error a domain wrapped it in stays the answer.
		err = db.Tx(ctx, func(q store.Querier) error {
			if _, err := q.ExecContext(ctx, insert, "project-gone", "https://a.test", 1); err != nil {
				return apierr.Wrap(apierr.ProjectNotFound, err)
			}
			return nil
		})
		if !apierr.Is(err, apierr.ProjectNotFound) || !errors.Is(err, store.ErrParentGone) {
			t.Fatalf("Tx returned %v, want project_not_found, still a store.ErrParentGone", err)
		}
	})
}

// LockRow and ShareRow of a row that is not there are store.ErrNotFound
// on both engines: a caller locking an organization before inserting
// under it learns it is gone there, rather than carrying on to an insert
// its foreign key refuses. They locked nothing and said nothing before.
func TestLockRowOfMissingRowIsNotFound(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		if _, err := db.ExecContext(ctx, `INSERT INTO projects (project_id, name, env, created_at) VALUES ($1, $2, $3, $4)`,
			"p1", "P", "test", 1); err != nil {
			t.Fatal(err)
		}
		for name, hold := range map[string]func(q store.Querier, key string) error{
			"LockRow":  func(q store.Querier, key string) error { return db.LockRow(ctx, q, "projects", "project_id", key) },
			"ShareRow": func(q store.Querier, key string) error { return db.ShareRow(ctx, q, "projects", "project_id", key) },
		} {
			err := db.Tx(ctx, func(q store.Querier) error {
				if err := hold(q, "p1"); err != nil {
					t.Errorf("%s of a present row: %v", name, err)
				}
				return hold(q, "p-missing")
			})
			if !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s of a missing row: %v, want store.ErrNotFound", name, err)
			}
		}
	})
}
