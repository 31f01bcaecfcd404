package organization_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// unproven records what MarkEmailVerified tells an UnprovenAccess; fail
// makes its next call fail.
type unproven struct {
	mu    sync.Mutex
	got   []organization.Verified
	fail  bool
	ended bool // what it reports
}

func (u *unproven) AddressVerified(_ context.Context, _ store.Querier, v organization.Verified) (bool, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.fail {
		u.fail = false
		return false, errors.New("unproven: refused")
	}
	u.got = append(u.got, v)
	return u.ended, nil
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

// The member's access ends once, after every UnprovenAccess was told, in
// the login's transaction, and only when one of them ended something: a
// first proof that ends nothing leaves the member's sessions and
// connected-app tokens alone.
func TestMemberAccessEndsOnceWhenUnprovenAccessEnded(t *testing.T) {
	for _, ended := range []bool{false, true} {
		t.Run(fmt.Sprintf("ended=%v", ended), func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				a, b := &unproven{ended: ended}, &unproven{ended: ended}
				e.App.Orgs.AddUnprovenAccess(a, b)
				var ends []string
				e.App.Orgs.AddMemberAccessEnder(func(_ context.Context, _ store.Querier, projectID, memberID string) error {
					if len(a.got) != 1 || len(b.got) != 1 {
						t.Errorf("access ended before every UnprovenAccess was told")
					}
					ends = append(ends, projectID+"/"+memberID)
					return nil
				})
				org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
				memberID := e.CreateMember(org, "ada@acme.test")
				e.EmailLogin(org, "ada@acme.test")
				e.EmailLogin(org, "ada@acme.test")
				var want []string
				if ended {
					want = []string{e.Project.Project.ID + "/" + memberID}
				}
				if !slices.Equal(ends, want) {
					t.Fatalf("ended %v after unproven access reported %v, want %v", ends, ended, want)
				}
			})
		})
	}
}
