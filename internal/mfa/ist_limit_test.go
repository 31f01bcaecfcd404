package mfa_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/session"
)

// The MFA calls of a login in progress take the IST from the client, and
// a wrong one counts against the client's address like a wrong IST at
// discovery (session.IntermediateFailuresPerIP): past the limit it is
// too_many_requests on every such call, and a login in progress from the
// same address still sends its code (GuardUnguessable).
func TestWrongISTsCountedOnMFACalls(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid := e.MFAMember()
		ist, _ := e.MFALogin(org, "ada@secure.test")
		send := func(ist string) apptest.Resp { return e.SMSSend(org, mid, ist, "+15005550006") }
		totp := func(ist string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": mid,
				"intermediate_session_token": ist}, "")
		}
		check := func(ist string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
				"intermediate_session_token": ist, "code": "123456"}, "")
		}
		recover := func(ist string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/recovery_codes/recover", map[string]any{"organization_id": org, "member_id": mid,
				"intermediate_session_token": ist, "recovery_code": "abcd-1234-efgh"}, "")
		}
		calls := []func(string) apptest.Resp{send, totp, check, recover}
		for i := range session.IntermediateFailuresPerIP.Limit {
			apptest.Want(t, calls[i%len(calls)](fmt.Sprintf("not-an-ist-%d", i)), 404, "intermediate_session_not_found")
		}
		for i, try := range calls {
			if r := try("not-an-ist-either"); r.Status != 429 || r.Body["error_type"] != "too_many_requests" {
				t.Errorf("call %d: a wrong IST past the address's limit: %d %s", i, r.Status, r.Raw)
			}
		}
		apptest.Want(t, send(ist), 200, "")
	})
}
