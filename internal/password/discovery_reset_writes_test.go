package password_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A discovery reset start does the same writes whether or not the address
// has a password (or is known at all), as the organization's does
// (TestResetStartBranchesWriteAlike): an address with a password also gets
// a "log in without password" discovery link, and storing it on its own
// cost one more write than a stranger's start, which a caller holding only
// the public token could time to learn who has a password. Counted with
// store.DB.Writes, so nothing here is timed.
func TestDiscoveryResetStartBranchesWriteAlike(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(acme, "pw@acme.test")
		e.SetPassword(acme, "pw@acme.test", apptest.StrongPassword)
		e.CreateMember(acme, "nopw@acme.test")
		writes := map[string]uint64{}
		for _, c := range []struct{ name, email string }{
			{"address with a password", "pw@acme.test"},
			{"member without a password", "nopw@acme.test"},
			{"stranger", "stranger@elsewhere.test"},
		} {
			before := e.App.DB.Writes()
			r := e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset/start", map[string]any{"email_address": c.email}, "")
			apptest.Want(t, r, 200, "")
			writes[c.name] = e.App.DB.Writes() - before
		}
		// The address with a password did get its login link, or the
		// comparison would prove nothing.
		if links, _ := e.LastMail("pw@acme.test"); len(links) < 2 {
			t.Fatalf("no login link in the reset email: %v", links)
		}
		for _, n := range writes {
			if n != writes["stranger"] {
				t.Fatalf("writes per discovery reset start differ: %v", writes)
			}
		}
	})
}
