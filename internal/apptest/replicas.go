package apptest

import (
	"net/http"
	"testing"
)

// RevokedButCached calls act with a session (from newSession) that e2
// revoked and e1 still answers from memory, after prepare: the second
// in which a replica may not yet know of a revocation made on another
// (the session check's hot cache). e1's change feed polls every 200 ms,
// so a poll between the revocation and the check that shows e1 is stale
// can catch the change first; the scenario then starts again with a new
// session, so that act never runs against a replica that already knows.
func RevokedButCached(t *testing.T, e1, e2 *Env, newSession func() string, prepare func(), act func(held string)) {
	t.Helper()
	check := func(token string) Resp {
		return e1.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
	}
	for range 5 {
		held := newSession()
		prepare()
		for range 2 {
			Want(t, check(held), 200, "")
		}
		Want(t, e2.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"session_token": held}), 200, "")
		if check(held).Status == 200 {
			act(held)
			return
		}
	}
	t.Fatal("e1 saw every revocation at once: the stale window could not be set up")
}
