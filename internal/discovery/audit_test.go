package discovery_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
)

// A session exchange starts a session for the person's membership of
// another organization, and creating an organization from a discovered
// session logs its first member in: both are logins in the audit log,
// filed under the member and organization of the session answered.
func TestDiscoverySessionsAreAuditedAsLogins(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		home := e.CreateOrg("home-co", "NOT_ALLOWED", nil)
		e.CreateMember(home, "ada@corp.test")
		org := e.CreateOrg("corp", "NOT_ALLOWED", nil)
		member := e.CreateMember(org, "ada@corp.test")
		token, _ := e.LoginByEmailOTP(home, "ada@corp.test")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange",
			map[string]any{"organization_id": org, "session_token": token}), 200, "")
		ist := e.Discover("bo@startup.test")["intermediate_session_token"]
		r := e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{"intermediate_session_token": ist}, "")
		apptest.Want(t, r, 200, "")
		created, _ := r.Data()["member"].(map[string]any)

		want := map[string]audit.Event{
			"session_exchange":              {MemberID: member, OrganizationID: org, Actor: "backend"},
			"discovery_organization_create": {MemberID: created["member_id"].(string), OrganizationID: created["organization_id"].(string), Actor: "sdk"},
		}
		got := map[string]audit.Event{}
		for deadline := time.Now().Add(10 * time.Second); len(got) < len(want) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			evs, err := e.App.Audit.List(t.Context(), audit.Filter{ProjectID: e.Project.Project.ID, Type: audit.Login})
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range evs {
				if _, ok := want[ev.Method]; ok {
					got[ev.Method] = ev
				}
			}
		}
		for method, w := range want {
			ev, ok := got[method]
			if !ok {
				t.Errorf("no %s login in the audit log", method)
				continue
			}
			if ev.Outcome != audit.Success || ev.MemberID != w.MemberID || ev.OrganizationID != w.OrganizationID || ev.Actor != w.Actor {
				t.Errorf("%s: %+v, want a success by %s of %s from %s", method, ev, w.MemberID, w.OrganizationID, w.Actor)
			}
		}
	})
}
