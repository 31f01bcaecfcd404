package store_test

import (
	"errors"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A transaction whose work answers a catalogue error wrapping the driver's
// unique violation (organization.CreateMember's duplicate_member_email,
// SaveMFA's duplicate_member_phone_number) comes out of Tx as that error,
// still a conflict underneath. Tx maps its callback's error, and on
// PostgreSQL the mapping once kept only the driver error it found inside,
// so the answer became a 500. Sequential requests never reach these
// inserts (each checks first); concurrent ones on PostgreSQL do.
func TestTxKeepsCatalogueErrorWrappingAConflict(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		insert := `INSERT INTO projects (project_id, name, env, created_at) VALUES ($1, $2, $3, $4)`
		if _, err := db.ExecContext(ctx, insert, "p1", "P", "test", 1); err != nil {
			t.Fatal(err)
		}
		err := db.Tx(ctx, func(q store.Querier) error {
			if _, err := q.ExecContext(ctx, insert, "p1", "P", "test", 1); err != nil {
				return apierr.Wrap(apierr.DuplicateMemberEmail, err)
			}
			return nil
		})
		if !apierr.Is(err, apierr.DuplicateMemberEmail) {
			t.Fatalf("Tx returned %v, want the catalogue's duplicate_member_email", err)
		}
		if !errors.Is(err, store.ErrConflict) {
			t.Fatalf("Tx returned %v, want it still a store.ErrConflict", err)
		}
	})
}
