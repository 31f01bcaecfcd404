package connectedapps_test

import (
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/connectedapps"
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

// The consent screen's name and description have bounds in characters,
// and a description may hold line breaks and tabs but no other control
// character (an escape sequence, a backspace, a lone carriage return): on
// create and update, naming the field, and a refused update changes
// nothing.
func TestClientNameAndDescriptionBounds(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		wantField := func(r apptest.Resp, field string) {
			t.Helper()
			apptest.Want(t, r, 400, "invalid_request")
			if d, _ := r.Body["error_details"].(map[string]any); d["field"] != field {
				t.Errorf("refusal names %v, want %s", r.Body["error_details"], field)
			}
		}
		create := func(name, description string) apptest.Resp {
			return e.Backend("POST", "/v1/connected_apps/clients", map[string]any{"client_type": "third_party",
				"client_name": name, "client_description": description})
		}
		longName, longDesc := strings.Repeat("é", connectedapps.MaxClientName), strings.Repeat("é", connectedapps.MaxClientDescription)
		wantField(create(longName+"é", ""), "client_name")
		wantField(create("Agent", longDesc+"é"), "client_description")
		badDescriptions := []string{"Reads\x1b[2J", "Reads\x08\x08", "Reads\rover", "Reads\vx"}
		for _, bad := range badDescriptions {
			wantField(create("Agent", bad), "client_description")
		}
		if n := e.Count(`SELECT COUNT(*) FROM idp_connected_apps`); n != 0 {
			t.Fatalf("refused creates left %d apps", n)
		}

		para := "Line one\r\nline two\n\tindented"
		a := app(t, create("  "+longName+"  ", longDesc))
		if a["client_name"] != longName || a["client_description"] != longDesc {
			t.Errorf("at the bounds: created %d / %d characters", len([]rune(a["client_name"].(string))), len([]rune(a["client_description"].(string))))
		}
		id := a["client_id"].(string)
		a = app(t, e.Backend("PUT", "/v1/connected_apps/clients/"+id, map[string]any{"client_name": "Agent", "client_description": para}))
		if a["client_description"] != para {
			t.Errorf("client_description = %q", a["client_description"])
		}
		wantField(e.Backend("PUT", "/v1/connected_apps/clients/"+id, map[string]any{"client_name": longName + "é"}), "client_name")
		for _, bad := range append(badDescriptions, longDesc+"é") {
			wantField(e.Backend("PUT", "/v1/connected_apps/clients/"+id, map[string]any{"client_description": bad}), "client_description")
		}
		if got := app(t, e.Backend("GET", "/v1/connected_apps/clients/"+id, nil)); got["client_name"] != "Agent" || got["client_description"] != para {
			t.Errorf("refused updates changed the app: %q / %q", got["client_name"], got["client_description"])
		}
	})
}
