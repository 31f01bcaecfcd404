package organization_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// An SDK route acting for a session's member reads the member's
// organization after the session check; a database error there (the
// connection cut as the read is sent) answers a 500, not 404
// session_not_found, which SDKs and the widget take for logged out. An
// organization that is really gone still ends the session.
func TestDatabaseErrorReadingTheCallersOrganizationIsNotSessionNotFound(t *testing.T) {
	t.Parallel()
	db1, db2, p := storetest.PairTextThrough(t)
	e2 := apptest.New(t, db2, nil)
	e1 := apptest.New(t, db1, nil)
	e1.Project = e2.Project
	org := e2.CreateOrg("acme", "ALL_ALLOWED", nil)
	token, _, _ := e2.Login(org, "ada@acme.test")
	me := func() apptest.Resp { return e1.SDK(http.MethodGet, "/b2b/organizations/me", nil, token) }
	apptest.Want(t, me(), 200, "") // the session is now in e1's cache

	p.CutOn("FROM organizations")
	apptest.Want(t, me(), 500, "internal_server_error")
	apptest.Want(t, me(), 200, "")

	apptest.Want(t, e2.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org, nil), 200, "")
	apptest.Want(t, me(), 404, "session_not_found")
}
