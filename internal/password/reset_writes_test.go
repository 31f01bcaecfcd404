package password_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A reset start does the same writes whoever the address is: the two send
// limits, then one transaction that finds the member, stores what the
// email carries (a reset token and a login link, a verification link, or
// nothing for a notice) and queues the email. After the limits a member
// with a password cost four writes (token, link, the recipient cap's
// count and the mail, each on its own) where a stranger a closed
// organization refuses cost two, which a caller holding only the public
// token could time. What is counted is store.DB.Writes (statements run on
// the writer outside a transaction, and committed transactions; the old
// code's rolled-back member lookup took the writer too and counts in
// neither), so no test here is timed.
func TestResetStartBranchesWriteAlike(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		closed := e.CreateOrg("closed", "NOT_ALLOWED", nil)
		open := e.CreateOrg("open", "ALL_ALLOWED", nil)
		e.CreateMember(closed, "pw@acme.test")
		e.SetPassword(closed, "pw@acme.test", apptest.StrongPassword)
		e.CreateMember(closed, "nopw@acme.test")
		e.DeleteMember(closed, e.CreateVerifiedMember(closed, "gone@acme.test"))
		writes := map[string]uint64{}
		for _, c := range []struct{ name, org, email string }{
			{"member with a password", closed, "pw@acme.test"},
			{"member without a password", closed, "nopw@acme.test"},
			{"deleted member", closed, "gone@acme.test"},
			{"stranger refused", closed, "stranger@acme.test"},
			{"stranger admitted", open, "newcomer@acme.test"},
		} {
			before := e.App.DB.Writes()
			apptest.Want(t, e.ResetStart(c.org, c.email, nil), 200, "")
			writes[c.name] = e.App.DB.Writes() - before
		}
		for _, n := range writes {
			if n != writes["stranger refused"] {
				t.Fatalf("writes per reset start differ: %v", writes)
			}
		}
	})
}
