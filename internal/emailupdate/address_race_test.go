package emailupdate_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// On PostgreSQL a member may start an email update from their session
// while an admin's change of their address is in flight: the session and
// the member were checked before the change committed. The change is held
// open after it cancelled the member's updates in flight and ended their
// sessions (storetest.Overlap) while the request runs; it must not leave
// the old address's holder a secret that moves the member to an address
// of their choosing.
func TestStartOverlappingAddressChangeOnPostgres(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	orgID := e.CreateOrg("acme", "NOT_ALLOWED", nil)
	mid := e.CreateMember(orgID, "bob@acme.test")
	sess := e.SessionFor(orgID, "bob@acme.test")
	var r apptest.Resp
	changeErr, _ := storetest.Overlap(t, e.App.DB, func(q store.Querier) error {
		return e.ChangeAddressIn(q, orgID, mid, "someone-else@acme.test")
	}, func() error {
		r = e.StartEmailUpdate(sess, "", map[string]any{"email_address": "robert@acme.test", "login_redirect_url": apptest.Page})
		return nil
	})
	if changeErr != nil {
		t.Fatalf("address change: %v", changeErr)
	}
	apptest.Want(t, r, http.StatusNotFound, "member_not_found")
	if n := e.Count(`SELECT COUNT(*) FROM magic_links WHERE member_id = $1 AND purpose = 'email_update' AND used_at IS NULL`, mid) +
		e.Count(`SELECT COUNT(*) FROM email_update_otps WHERE member_id = $1 AND used_at IS NULL`, mid); n != 0 {
		t.Fatalf("%d live email-update secrets of the member after the address change", n)
	}
}
