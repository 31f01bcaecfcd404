package organization_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// unproven records what MarkEmailVerified tells an UnprovenAccess; fail
// makes its next call fail.
type unproven struct {
	mu   sync.Mutex
	got  []organization.Verified
	fail bool
}

func (u *unproven) AddressVerified(_ context.Context, _ store.Querier, v organization.Verified) (bool, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.fail {
		u.fail = false
		return false, errors.New("unproven: refused")
	}
	u.got = append(u.got, v)
	return false, nil
}

// The first proof of a member's address is told to every UnprovenAccess,
// inside the login's transaction: when one fails, the login fails and the
// address stays unverified. Told once: later logins verify the address
// again but announce nothing.
func TestFirstProofOfAnAddressIsAnnounced(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		u := &unproven{fail: true}
		e.App.Orgs.AddUnprovenAccess(u)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		memberID := e.CreateMember(org, "ada@acme.test")
		apptest.Want(t, e.SendCode(org, "ada@acme.test"), 200, "")
		_, codes := e.LastMail("ada@acme.test")
		if r := e.CheckCode(org, "ada@acme.test", codes[0]); r.Status != http.StatusInternalServerError {
			t.Fatalf("login with a failing UnprovenAccess: %s", r.Raw)
		}
		if v := e.MemberByID(org, memberID)["email_address_verified"]; v != false {
			t.Fatalf("email_address_verified %v after the failed login", v)
		}
		e.EmailLogin(org, "ada@acme.test")
		e.EmailLogin(org, "ada@acme.test")
		want := organization.Verified{ProjectID: e.Project.Project.ID, OrganizationID: org, MemberID: memberID, Email: "ada@acme.test"}
		if len(u.got) != 1 || u.got[0] != want {
			t.Fatalf("announced %+v, want once %+v", u.got, want)
		}
	})
}
