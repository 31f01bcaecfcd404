package scim_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/organization"
)

// Every change of a SCIM connection's bearer tokens is an audit event
// written with it, as other client secrets' are: create and rotation
// start issue a token (secret_rotated), rotation complete and cancel and
// the connection's deletion end one (secret_retired). The event names the
// connection and its organization, never a token, and who acted: the
// project secret ("backend"), a member's session on the SDK face ("sdk")
// or on the backend face ("backend"), with the member. A refused step
// records nothing.
func TestBearerTokenChangesAreAudited(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		var tokens []string
		keep := func(r apptest.Resp) apptest.Resp {
			body := r.Body
			if d, ok := body["data"].(map[string]any); ok {
				body = d
			}
			c, _ := body["connection"].(map[string]any)
			for _, k := range []string{"bearer_token", "next_bearer_token"} {
				if s, _ := c[k].(string); s != "" {
					tokens = append(tokens, s)
				}
			}
			e.Clock.Advance(time.Millisecond) // events in order
			return r
		}
		acme := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		r := keep(e.Backend(http.MethodPost, "/v1/b2b/scim/"+acme+"/connection", nil))
		apptest.Want(t, r, 200, "")
		aid := r.Body["connection"].(map[string]any)["connection_id"].(string)
		path := "/v1/b2b/scim/" + acme + "/connection/" + aid
		apptest.Want(t, keep(e.Backend(http.MethodPost, path+"/rotate/start", nil)), 200, "")
		apptest.Want(t, keep(e.Backend(http.MethodPost, path+"/rotate/start", nil)), 400, "invalid_request")
		apptest.Want(t, keep(e.Backend(http.MethodPost, path+"/rotate/complete", nil)), 200, "")
		apptest.Want(t, keep(e.Backend(http.MethodPost, path+"/rotate/cancel", nil)), 400, "scim_connection_not_rotating_token")

		globex := e.CreateOrg("globex", "NOT_ALLOWED", nil)
		bossID := e.CreateAdmin(globex, "boss@globex.test")
		boss := e.SessionFor(globex, "boss@globex.test")
		r = keep(e.SDK(http.MethodPost, "/b2b/scim", map[string]any{}, boss))
		apptest.Want(t, r, 200, "")
		gid := r.Data()["connection"].(map[string]any)["connection_id"].(string)
		apptest.Want(t, keep(e.SDK(http.MethodPost, "/b2b/scim/rotate/start", map[string]any{"connection_id": gid}, boss)), 200, "")
		apptest.Want(t, keep(e.BackendAs(http.MethodPost, "/v1/b2b/scim/"+globex+"/connection/"+gid+"/rotate/cancel", nil,
			organization.MemberSessionHeader, boss)), 200, "")
		apptest.Want(t, keep(e.SDK(http.MethodDelete, "/b2b/scim/"+gid, nil, boss)), 200, "")
		apptest.Want(t, keep(e.Backend(http.MethodDelete, path, nil)), 200, "")

		all, err := e.App.Audit.List(t.Context(), audit.Filter{ProjectID: e.Project.Project.ID, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		var evs []audit.Event
		for i := len(all) - 1; i >= 0; i-- { // List is newest first
			if ev := all[i]; ev.Type == audit.SecretRotated || ev.Type == audit.SecretRetired {
				evs = append(evs, ev)
			}
		}
		type want struct{ typ, method, conn, org, actor, member string }
		wants := []want{
			{audit.SecretRotated, "client_created", aid, acme, "backend", ""},
			{audit.SecretRotated, "rotation_started", aid, acme, "backend", ""},
			{audit.SecretRetired, "rotation_completed", aid, acme, "backend", ""},
			{audit.SecretRotated, "client_created", gid, globex, "sdk", bossID},
			{audit.SecretRotated, "rotation_started", gid, globex, "sdk", bossID},
			{audit.SecretRetired, "rotation_cancelled", gid, globex, "backend", bossID},
			{audit.SecretRetired, "client_deleted", gid, globex, "sdk", bossID},
			{audit.SecretRetired, "client_deleted", aid, acme, "backend", ""},
		}
		if len(evs) != len(wants) {
			t.Fatalf("%d secret events, want %d: %+v", len(evs), len(wants), evs)
		}
		if len(tokens) != 4 {
			t.Fatalf("%d tokens shown, want 4", len(tokens))
		}
		for i, w := range wants {
			ev := evs[i]
			member, _ := ev.Details["actor_member_id"].(string)
			if ev.Type != w.typ || ev.Method != w.method || ev.Details["client_id"] != w.conn || ev.Details["client_type"] != "scim_connection" ||
				ev.OrganizationID != w.org || ev.Actor != w.actor || member != w.member || ev.RequestID == "" || ev.IP == "" {
				t.Errorf("event %d: %+v, want %+v", i, ev, w)
			}
			raw, _ := json.Marshal(ev)
			for _, tok := range tokens {
				if strings.Contains(string(raw), tok) {
					t.Errorf("event %d holds a bearer token: %s", i, raw)
				}
			}
		}
	})
}
