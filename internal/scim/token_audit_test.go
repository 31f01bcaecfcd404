package scim_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
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

// failOnce is an organization.DeletionHook, registered after SCIM's,
// whose first call fails the deletion it runs in.
type failOnce struct {
	mu     sync.Mutex
	failed bool
}

func (f *failOnce) BeforeOrganizationDelete(context.Context, store.Querier, string, string, organization.Actor) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failed {
		return nil
	}
	f.failed = true
	return errors.New("failOnce: refused")
}

// Deleting an organization ends its SCIM connection's bearer tokens (the
// connection cascades), and records that as deleting the connection does:
// one secret_retired client_deleted event naming the connection, its
// organization and who deleted it (the project secret, a member's session
// on the backend face, or on the SDK face), written in the deletion's
// transaction, so a deletion that fails records nothing. An organization
// without a connection records no secret event.
func TestOrganizationDeletionAuditsItsConnectionsToken(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		type org struct{ id, conn, actor, member string }
		newOrg := func(slug string) org {
			t.Helper()
			o := org{id: e.CreateOrg(slug, "NOT_ALLOWED", nil)}
			o.conn, _, _ = connection(t, e, o.id, nil)
			return o
		}
		retired := func() []audit.Event {
			t.Helper()
			all, err := e.App.Audit.List(t.Context(), audit.Filter{ProjectID: e.Project.Project.ID, Type: audit.SecretRetired, Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			return all
		}

		// A deletion that fails after SCIM's record keeps the connection
		// and records nothing.
		fail := &failOnce{}
		e.App.Orgs.AddDeletionHook(fail)
		kept := newOrg("kept")
		if r := e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+kept.id, nil); r.Status != http.StatusInternalServerError {
			t.Fatalf("deletion with a failing auditor: %d %s", r.Status, r.Raw)
		}
		if n := len(retired()); n != 0 {
			t.Fatalf("a failed deletion recorded %d secret_retired events", n)
		}
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/scim/"+kept.id+"/connection", nil), 200, "")

		acme := newOrg("acme")
		acme.actor = "backend"
		globex := newOrg("globex")
		globex.actor, globex.member = "backend", e.CreateAdmin(globex.id, "boss@globex.test")
		initech := newOrg("initech")
		initech.actor, initech.member = "sdk", e.CreateAdmin(initech.id, "boss@initech.test")
		bare := e.CreateOrg("bare", "NOT_ALLOWED", nil)

		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+acme.id, nil), 200, "")
		apptest.Want(t, e.BackendAs(http.MethodDelete, "/v1/b2b/organizations/"+globex.id, nil,
			organization.MemberSessionHeader, e.SessionFor(globex.id, "boss@globex.test")), 200, "")
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/organizations/me", nil, e.SessionFor(initech.id, "boss@initech.test")), 200, "")
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+bare, nil), 200, "")

		got := map[string]audit.Event{}
		for _, ev := range retired() {
			id, _ := ev.Details["client_id"].(string)
			if _, dup := got[id]; dup {
				t.Errorf("two events for %s", id)
			}
			got[id] = ev
		}
		if len(got) != 3 {
			t.Fatalf("%d connections' events, want 3: %v", len(got), got)
		}
		for _, o := range []org{acme, globex, initech} {
			ev, ok := got[o.conn]
			member, _ := ev.Details["actor_member_id"].(string)
			if !ok || ev.Method != "client_deleted" || ev.Details["client_type"] != "scim_connection" || ev.OrganizationID != o.id ||
				ev.Actor != o.actor || member != o.member || ev.RequestID == "" || ev.IP == "" {
				t.Errorf("%s's deletion: %+v, want client_deleted of %s by %s %s", o.id, ev, o.conn, o.actor, o.member)
			}
		}
		if n := e.Count(`SELECT COUNT(*) FROM scim_connections WHERE organization_id <> $1`, kept.id); n != 0 {
			t.Errorf("%d connections outlived their organization", n)
		}
	})
}
