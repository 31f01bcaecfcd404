package connectedapps_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The consent screen shows a connected app's client_name (and hands its
// client_description to the page): bidirectional formatting characters in
// either are refused on create and update, control characters in the
// one-line name too; a name with nothing visible is stored blank, as
// spaces are, and a refused update changes nothing.
func TestClientNameRefusesBidiControls(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		wantField := func(r apptest.Resp, field string) {
			t.Helper()
			apptest.Want(t, r, 400, "invalid_request")
			if d, _ := r.Body["error_details"].(map[string]any); d["field"] != field {
				t.Errorf("refusal names %v, want %s", r.Body["error_details"], field)
			}
		}
		for _, bad := range []string{"Agent\u202e", "\u2067Agent\u2069", "\u200eAgent", "\u061c"} {
			wantField(e.Backend("POST", "/v1/connected_apps/clients", map[string]any{"client_type": "third_party", "client_name": bad}), "client_name")
			wantField(e.Backend("POST", "/v1/connected_apps/clients", map[string]any{"client_type": "third_party", "client_name": "Agent",
				"client_description": "Reads " + bad}), "client_description")
		}
		wantField(e.Backend("POST", "/v1/connected_apps/clients", map[string]any{"client_type": "third_party", "client_name": "Two\nlines"}), "client_name")

		a := app(t, e.Backend("POST", "/v1/connected_apps/clients", map[string]any{"client_type": "third_party", "client_name": "\u200b\u00ad",
			"client_description": "Line one\nline two"}))
		if a["client_name"] != "" || a["client_description"] != "Line one\nline two" {
			t.Errorf("created %q / %q", a["client_name"], a["client_description"])
		}
		id := a["client_id"].(string)
		app(t, e.Backend("PUT", "/v1/connected_apps/clients/"+id, map[string]any{"client_name": "Agent 👩\u200d💻"}))
		wantField(e.Backend("PUT", "/v1/connected_apps/clients/"+id, map[string]any{"client_name": "Agent\u202egnp.exe"}), "client_name")
		if got := app(t, e.Backend("GET", "/v1/connected_apps/clients/"+id, nil))["client_name"]; got != "Agent 👩\u200d💻" {
			t.Errorf("client_name = %q", got)
		}
	})
}
