package session_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A session check whose read of the session's member or organization
// fails for the database's sake (here the connection is cut as the read
// is sent, as when PostgreSQL restarts or a backend is killed) answers a
// 500, not 404 session_not_found: SDKs and the widget drop a session on
// session_not_found, so every user whose check met a blip was logged
// out. A member or organization that is really gone is still not found.
func TestDatabaseErrorInASessionCheckIsNotSessionNotFound(t *testing.T) {
	t.Parallel()
	// e2 logs in; e1, through the proxy, has cached none of it.
	db1, db2, p := storetest.PairTextThrough(t)
	e2 := apptest.New(t, db2, nil)
	e1 := apptest.New(t, db1, nil)
	e1.Project = e2.Project
	check := func(token string) apptest.Resp {
		return e1.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
	}
	for _, tc := range []struct{ name, cutOn string }{
		{"member", "FROM members WHERE member_id"},
		{"organization", "FROM organizations"},
	} {
		org := e2.CreateOrg("acme-"+tc.name, "ALL_ALLOWED", nil)
		token, _, _ := e2.Login(org, "ada@acme.test")
		p.CutOn(tc.cutOn)
		apptest.Want(t, check(token), 500, "internal_server_error")
		// The next check, on a new connection, reads and answers.
		apptest.Want(t, check(token), 200, "")
	}

	// Gone for real: still not found.
	org := e2.CreateOrg("acme-gone", "ALL_ALLOWED", nil)
	token, _, memberID := e2.Login(org, "ada@acme.test")
	apptest.Want(t, e2.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+memberID, nil), 200, "")
	apptest.Want(t, check(token), 404, "session_not_found")
}
