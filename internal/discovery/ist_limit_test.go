package discovery_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/session"
)

// Every discovery route that takes an IST counts a wrong one against the
// client's address under one rule (session.IntermediateFailuresPerIP):
// listing the organizations and creating one, which only look at the IST,
// count together with the exchange, which spends it. Past the limit a
// wrong IST is too_many_requests everywhere, while a correct one still
// lists and creates (GuardUnguessable): only the exchange, which counts
// before it looks, refuses it.
func TestWrongISTsCountedOnEveryDiscoveryRoute(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		list := func(ist any) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/discovery/organizations", map[string]any{"intermediate_session_token": ist}, "")
		}
		create := func(ist any) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{"intermediate_session_token": ist,
				"organization_name": "Startup", "session_duration_minutes": 60}, "")
		}
		exchange := func(ist any) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": ist,
				"organization_id": org, "session_duration_minutes": 60}, "")
		}
		valid := e.Discover("ada@startup.test")["intermediate_session_token"]
		routes := []func(any) apptest.Resp{list, create, exchange}
		for i := range session.IntermediateFailuresPerIP.Limit {
			apptest.Want(t, routes[i%len(routes)](fmt.Sprintf("not-an-ist-%d", i)), 404, "intermediate_session_not_found")
		}
		for name, try := range map[string]func(any) apptest.Resp{"list": list, "create": create, "exchange": exchange} {
			if r := try("not-an-ist-either"); r.Status != 429 || r.Body["error_type"] != "too_many_requests" {
				t.Errorf("%s: a wrong IST past the address's limit: %d %s", name, r.Status, r.Raw)
			}
		}
		apptest.Want(t, list(valid), 200, "")
		apptest.Want(t, create(valid), 200, "")
	})
}
