package organization_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A login-or-signup send for a new address of an organization that admits
// it by email JIT while another login or send of it (a double click, two
// tabs) creates its member: both find no member and both create one. The
// second creation waits for the first and takes the member it created:
// the send goes out, to the one member. (A plain insert hits the unique
// (organization_id, email_address) index, which on PostgreSQL aborts the
// send's transaction.)
func TestJITSignupSendsForOneAddressShareTheMember(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	orgID := e.CreateOrg("jit-race", "ALL_ALLOWED", nil)
	var send apptest.Resp
	e.DuringProvisioning(t, orgID, "new@jit-race.test", func() { send = e.SendCode(orgID, "new@jit-race.test") })
	apptest.Want(t, send, 200, "")
}

// An explicit creation of a member (the backend API) while a login
// creates one for the same address is a real duplicate: it is answered
// duplicate_member_email, not taken over as a login's creation is.
func TestBackendCreateDuringJITCreationIsDuplicate(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	orgID := e.CreateOrg("jit-dup", "ALL_ALLOWED", nil)
	var r apptest.Resp
	e.DuringProvisioning(t, orgID, "new@jit-dup.test", func() {
		r = e.Backend(http.MethodPost, "/v1/b2b/organizations/"+orgID+"/members", map[string]any{"email_address": "new@jit-dup.test"})
	})
	apptest.Want(t, r, 400, "duplicate_member_email")
}
