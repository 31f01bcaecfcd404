package discovery_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/session"
)

// sessions/exchange and the discovered organizations of a session take the
// session from the client through session.Service.Check, so a stale one
// counts against the client's address like a failed session check: the
// two together reach session.FailuresPerIP, after which every session
// check from the address that fails is too_many_requests, and a valid
// session still passes.
func TestSessionFailuresCountedInDiscovery(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		// ada is a member of both: sessions/exchange moves only between
		// organizations the member belongs to.
		other := e.CreateOrg("beta", "NOT_ALLOWED", nil)
		e.CreateMember(other, "ada@acme.test")
		valid, _ := e.LoginByEmailOTP(org, "ada@acme.test")
		exchange := func(tok string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/sessions/exchange", map[string]any{"organization_id": other}, tok)
		}
		list := func(tok string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/discovery/organizations", map[string]any{}, tok)
		}
		for i := range session.FailuresPerIP.Limit {
			try := exchange
			if i%2 == 1 {
				try = list
			}
			apptest.Want(t, try(fmt.Sprintf("stale-%d", i)), 404, "session_not_found")
		}
		apptest.Want(t, exchange("stale-again"), 429, "too_many_requests")
		apptest.Want(t, list("stale-again"), 429, "too_many_requests")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, "stale-again"), 429, "too_many_requests")
		apptest.Want(t, list(valid), 200, "")
		apptest.Want(t, exchange(valid), 200, "")
	})
}
