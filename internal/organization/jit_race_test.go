package organization_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// Two login-or-signup sends for one new address of an organization that
// admits it by email JIT (a double click, two tabs) both find no member
// and both create one. The second creation waits for the first and then
// takes the member it created: the send goes out, to the one member. (A
// plain insert hits the unique (organization_id, email_address) index,
// which on PostgreSQL aborts the send's transaction.) The first
// transaction is the winning send's lookup and creation
// (MemberForEmailLoginIn, as the send makes it), held open while the
// second send runs.
func TestJITSignupSendsForOneAddressShareTheMember(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, storetest.Postgres(t), nil)
	ctx := t.Context()
	orgID := e.CreateOrg("jit-race", "ALL_ALLOWED", nil)
	org, err := e.App.Orgs.Get(ctx, e.Project.Project.ID, orgID)
	if err != nil {
		t.Fatal(err)
	}
	winner := func(q store.Querier) error {
		_, _, err := e.App.Orgs.MemberForEmailLoginIn(ctx, q, org, e.Project.Project.Env, "new@jit-race.test")
		return err
	}
	var send apptest.Resp
	if _, err := storetest.Overlap(t, e.App.DB, winner, func() error { send = e.SendCode(orgID, "new@jit-race.test"); return nil }); err != nil {
		t.Fatal(err)
	}
	apptest.Want(t, send, 200, "")
	if n := e.Count(`SELECT COUNT(*) FROM members WHERE organization_id = $1`, orgID); n != 1 {
		t.Fatalf("%d members, want the one", n)
	}
}

// An explicit creation of a member (the backend API) while a login
// creates one for the same address is a real duplicate: it is answered
// duplicate_member_email, not taken over as a login's creation is, and not
// a 500 (the catalogue error wraps the unique violation, and the
// transaction's error mapping keeps it).
func TestBackendCreateDuringJITCreationIsDuplicate(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, storetest.Postgres(t), nil)
	orgID := e.CreateOrg("jit-dup", "ALL_ALLOWED", nil)
	var r apptest.Resp
	create := func() error {
		r = e.Backend(http.MethodPost, "/v1/b2b/organizations/"+orgID+"/members", map[string]any{"email_address": "new@jit-dup.test"})
		return nil
	}
	if _, err := storetest.Overlap(t, e.App.DB, func(q store.Querier) error {
		return e.ProvisionIn(q, orgID, "new@jit-dup.test")
	}, create); err != nil {
		t.Fatal(err)
	}
	apptest.Want(t, r, 400, "duplicate_member_email")
}
