package connectedapps_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
)

// Every change of a confidential connected app's secrets is an audit event
// written with it, as for M2M clients: create and rotation start issue a
// secret (secret_rotated), rotation complete and cancel and delete end one
// (secret_retired). A public client has no secret, so its create and
// delete record nothing; nor does a refused step.
func TestSecretChangesAreAudited(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		var secrets []string
		do := func(method, path string, body any, status int, errType string) map[string]any {
			t.Helper()
			e.Clock.Advance(time.Millisecond) // events in order
			r := e.Backend(method, path, body)
			apptest.Want(t, r, status, errType)
			m, _ := r.Body["connected_app"].(map[string]any)
			for _, k := range []string{"client_secret", "next_client_secret"} {
				if s, _ := m[k].(string); s != "" {
					secrets = append(secrets, s)
				}
			}
			return m
		}
		const clients = "/v1/connected_apps/clients"
		create := func(typ string) string {
			return do("POST", clients, map[string]any{"client_type": typ, "client_name": "Agent",
				"redirect_urls": []string{"https://agent.test/cb"}}, 200, "")["client_id"].(string)
		}
		conf, pub := create("third_party"), create("first_party_public")
		path := clients + "/" + conf + "/secrets/rotate"
		do("POST", path+"/start", nil, 200, "")
		do("POST", path, nil, 200, "")
		do("POST", path+"/cancel", nil, 400, "connected_app_not_rotating_secret")
		do("POST", path+"/start", nil, 200, "")
		do("POST", path+"/cancel", nil, 200, "")
		do("POST", clients+"/"+pub+"/secrets/rotate/start", nil, 400, "invalid_request")
		do("DELETE", clients+"/"+pub, nil, 200, "")
		do("DELETE", clients+"/"+conf, nil, 200, "")
		do("DELETE", clients+"/"+conf, nil, 404, "connected_app_not_found")

		evs, err := e.App.Audit.List(t.Context(), audit.Filter{ProjectID: e.Project.Project.ID})
		if err != nil {
			t.Fatal(err)
		}
		// The client's own changes are admin_change events, filed after
		// the answer; the secrets are what this test follows.
		evs = slices.DeleteFunc(evs, func(ev audit.Event) bool { return ev.Type == audit.AdminChange })
		want := [][2]string{
			{audit.SecretRotated, "client_created"},
			{audit.SecretRotated, "rotation_started"},
			{audit.SecretRetired, "rotation_completed"},
			{audit.SecretRotated, "rotation_started"},
			{audit.SecretRetired, "rotation_cancelled"},
			{audit.SecretRetired, "client_deleted"},
		}
		if len(evs) != len(want) {
			t.Fatalf("%d events, want %d: %+v", len(evs), len(want), evs)
		}
		for i, w := range want {
			ev := evs[len(evs)-1-i] // List is newest first
			if ev.Type != w[0] || ev.Method != w[1] || ev.Details["client_id"] != conf || ev.Details["client_type"] != "connected_app" ||
				ev.Actor != "backend" || ev.RequestID == "" {
				t.Errorf("event %d: %+v, want %v", i, ev, w)
			}
			raw, _ := json.Marshal(ev)
			for _, s := range secrets {
				if strings.Contains(string(raw), s) {
					t.Errorf("event %d holds a secret: %s", i, raw)
				}
			}
		}
	})
}
