package session_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
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
	proxied, direct, p := storetest.PostgresThrough(t)
	// Every statement sends its text (no cached prepared statements), so
	// the proxy can tell which read it is cutting.
	u, err := url.Parse(proxied)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("default_query_exec_mode", "describe_exec")
	u.RawQuery = q.Encode()
	open := func(dsn string) *store.DB {
		db, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	// e2 logs in; e1, through the proxy, has cached none of it.
	e2 := apptest.New(t, open(direct), nil)
	e1 := apptest.New(t, open(u.String()), nil)
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
