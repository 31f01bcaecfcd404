package organization_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// On PostgreSQL a member is created with an address while an admin's
// change of another member away from that address is in flight: the
// creation's check of the retired addresses ran before the change
// committed, and its insert, which waited on the address's unique index
// for the change, then found the address free. The address the change
// retired stays reserved for its member (refuseRetired), so the creation
// is refused, as it is a moment later.
func TestCreateDuringAddressChangeHonoursTheRetiredAddress(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
	bob := e.CreateMember(org, "bob@acme.test")
	var r apptest.Resp
	changeErr, _ := storetest.Overlap(t, e.App.DB, func(q store.Querier) error {
		return e.ChangeAddressIn(q, org, bob, "robert@acme.test")
	}, func() error {
		r = e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members", map[string]any{"email_address": "bob@acme.test"})
		return nil
	})
	if changeErr != nil {
		t.Fatalf("address change: %v", changeErr)
	}
	apptest.Want(t, r, http.StatusBadRequest, "duplicate_member_email")
	if ret := e.MemberByID(org, bob)["retired_email_addresses"].([]any); len(ret) != 1 {
		t.Fatalf("bob's retired addresses: %v", ret)
	}
	if n := e.Count(`SELECT COUNT(*) FROM members WHERE organization_id = $1 AND email_address = $2`, org, "bob@acme.test"); n != 0 {
		t.Fatalf("%d members were given bob's retired address", n)
	}
}

// The same race with another member's address change to the address being
// retired: the change waited on the unique index and then found it free.
func TestAddressChangeDuringAnotherChangeHonoursTheRetiredAddress(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
	bob := e.CreateMember(org, "bob@acme.test")
	cy := e.CreateMember(org, "cy@acme.test")
	var r apptest.Resp
	changeErr, _ := storetest.Overlap(t, e.App.DB, func(q store.Querier) error {
		return e.ChangeAddressIn(q, org, bob, "robert@acme.test")
	}, func() error {
		r = e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+cy, map[string]any{"email_address": "bob@acme.test"})
		return nil
	})
	if changeErr != nil {
		t.Fatalf("address change: %v", changeErr)
	}
	apptest.Want(t, r, http.StatusBadRequest, "duplicate_member_email")
	if m := e.MemberByID(org, cy); m["email_address"] != "cy@acme.test" {
		t.Fatalf("cy was given bob's retired address: %v", m["email_address"])
	}
}
