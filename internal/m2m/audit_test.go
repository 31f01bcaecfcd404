package m2m_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
)

// Every change of an M2M client's secrets is an audit event written with
// it: create and rotation start issue a secret (secret_rotated), rotation
// complete and cancel and delete end one (secret_retired); the method
// names the step, the details the client, never a secret. A refused step
// records nothing.
func TestSecretChangesAreAudited(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		a := tenant{e, e.Project}
		var secrets []string
		do := func(method, path string, body any, status int, errType string) map[string]any {
			t.Helper()
			e.Clock.Advance(time.Millisecond) // events in order
			r := a.backend(method, path, body)
			apptest.Want(t, r, status, errType)
			m, _ := r.Body["m2m_client"].(map[string]any)
			for _, k := range []string{"client_secret", "next_client_secret"} {
				if s, _ := m[k].(string); s != "" {
					secrets = append(secrets, s)
				}
			}
			return m
		}
		const chosen = "correct-horse-battery-staple-1234567890"
		gen := do("POST", "/v1/m2m/clients", map[string]any{"scopes": []string{"read"}}, 200, "")["client_id"].(string)
		do("POST", "/v1/m2m/clients", map[string]any{"client_id": "job-1", "client_secret": chosen, "scopes": []string{"read"}}, 200, "")
		do("POST", "/v1/m2m/clients", map[string]any{"client_id": "job-1", "scopes": []string{"read"}}, 400, "duplicate_m2m_client_id")
		path := "/v1/m2m/clients/job-1/secrets/rotate"
		do("POST", path+"/start", nil, 200, "")
		do("POST", path+"/start", nil, 400, "m2m_client_already_rotating_secret")
		do("POST", path, nil, 200, "")
		do("POST", path, nil, 400, "m2m_client_not_rotating_secret")
		do("POST", path+"/start", nil, 200, "")
		do("POST", path+"/cancel", nil, 200, "")
		do("DELETE", "/v1/m2m/clients/"+gen, nil, 200, "")
		do("DELETE", "/v1/m2m/clients/"+gen, nil, 404, "m2m_client_not_found")

		evs, err := e.App.Audit.List(t.Context(), audit.Filter{ProjectID: e.Project.Project.ID})
		if err != nil {
			t.Fatal(err)
		}
		// The client's own changes are admin_change events, filed after
		// the answer; the secrets are what this test follows.
		evs = slices.DeleteFunc(evs, func(ev audit.Event) bool { return ev.Type == audit.AdminChange })
		want := [][3]string{
			{audit.SecretRotated, "client_created", gen},
			{audit.SecretRotated, "client_created", "job-1"},
			{audit.SecretRotated, "rotation_started", "job-1"},
			{audit.SecretRetired, "rotation_completed", "job-1"},
			{audit.SecretRotated, "rotation_started", "job-1"},
			{audit.SecretRetired, "rotation_cancelled", "job-1"},
			{audit.SecretRetired, "client_deleted", gen},
		}
		if len(evs) != len(want) {
			t.Fatalf("%d events, want %d: %+v", len(evs), len(want), evs)
		}
		for i, w := range want {
			ev := evs[len(evs)-1-i] // List is newest first
			if ev.Type != w[0] || ev.Method != w[1] || ev.Details["client_id"] != w[2] || ev.Details["client_type"] != "m2m_client" ||
				ev.Actor != "backend" || ev.Outcome != audit.Success || ev.RequestID == "" || ev.IP == "" {
				t.Errorf("event %d: %+v, want %v", i, ev, w)
			}
			raw, _ := json.Marshal(ev)
			for _, s := range append(secrets, chosen) {
				if strings.Contains(string(raw), s) {
					t.Errorf("event %d holds a secret: %s", i, raw)
				}
			}
		}
	})
}

// The event is written in the change's transaction: when it cannot be
// written, the change is not made either (a secret issued or ended without
// its record).
func TestSecretChangeWithoutItsEventIsNotMade(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		a := tenant{e, e.Project}
		apptest.Want(t, a.backend("POST", "/v1/m2m/clients", map[string]any{"client_id": "job-1", "scopes": []string{"read"}}), 200, "")
		move := func(from, to string) {
			t.Helper()
			if _, err := e.App.DB.ExecContext(t.Context(), `ALTER TABLE `+from+` RENAME TO `+to); err != nil {
				t.Fatal(err)
			}
		}
		move("audit_events", "audit_events_away")
		for _, c := range []struct{ method, path string }{
			{"POST", "/v1/m2m/clients"},
			{"POST", "/v1/m2m/clients/job-1/secrets/rotate/start"},
			{"DELETE", "/v1/m2m/clients/job-1"},
		} {
			if r := a.backend(c.method, c.path, map[string]any{"client_id": "job-2", "scopes": []string{"read"}}); r.Status != 500 {
				t.Errorf("%s %s without the audit log: %d %s", c.method, c.path, r.Status, r.Raw)
			}
		}
		move("audit_events_away", "audit_events")
		c := a.client(t, "job-1")
		if c["next_client_secret_last_four"] != nil {
			t.Errorf("a rotation started without its event: %v", c)
		}
		if n := e.Count(`SELECT COUNT(*) FROM m2m_clients`); n != 1 {
			t.Errorf("%d clients, want job-1 alone", n)
		}
	})
}
