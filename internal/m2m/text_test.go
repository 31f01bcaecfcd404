package m2m_test

import (
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/m2m"
)

// A client's name and description are text others read: control and
// bidirectional formatting characters are refused in the name, all but
// line breaks and tabs in the description, and either past its bound in
// characters, on create and update, naming the field and writing nothing.
// A name with nothing visible is stored blank.
func TestClientNameAndDescription(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		refused := func(r apptest.Resp, field string) {
			t.Helper()
			apptest.Want(t, r, 400, "invalid_request")
			if d, _ := r.Body["error_details"].(map[string]any); d["field"] != field {
				t.Errorf("refusal names %v, want %s: %s", r.Body["error_details"], field, r.Raw)
			}
		}
		create := func(fields map[string]any) apptest.Resp {
			fields["scopes"] = []string{"read"}
			return e.Backend("POST", "/v1/m2m/clients", fields)
		}
		badNames := []string{"Job\x1b[2J", "Two\nlines", "Job\rOK", "Job\x7fx", "Job\u0085x", "Job\u202egnp.exe", "\u2067Job\u2069",
			strings.Repeat("é", m2m.MaxClientName+1)}
		badDescriptions := []string{"Reads\x1b[31m", "Reads\x08\x08", "Reads\rover", "Reads\vx", "Reads\x1cx", "Reads \u202e", strings.Repeat("é", m2m.MaxClientDescription+1)}
		for _, bad := range badNames {
			refused(create(map[string]any{"client_name": bad}), "client_name")
		}
		for _, bad := range badDescriptions {
			refused(create(map[string]any{"client_name": "Job", "client_description": bad}), "client_description")
		}
		if n := e.Count(`SELECT COUNT(*) FROM m2m_clients`); n != 0 {
			t.Fatalf("refused creates left %d clients", n)
		}

		longName, longDesc := strings.Repeat("é", m2m.MaxClientName), strings.Repeat("é", m2m.MaxClientDescription)
		para := "Line one\nline two\r\n\tindented"
		for _, ok := range []struct{ name, desc string }{{longName, longDesc}, {"Agent 👩\u200d💻", para}, {"  Job  ", "  " + para + "\n"}} {
			r := create(map[string]any{"client_name": ok.name, "client_description": ok.desc})
			apptest.Want(t, r, 200, "")
			c := r.Body["m2m_client"].(map[string]any)
			if c["client_name"] != strings.TrimSpace(ok.name) || c["client_description"] != strings.TrimSpace(ok.desc) {
				t.Errorf("created %q / %q", c["client_name"], c["client_description"])
			}
		}
		r := create(map[string]any{"client_name": "\u200b\u00ad", "client_description": para})
		apptest.Want(t, r, 200, "")
		c := r.Body["m2m_client"].(map[string]any)
		if c["client_name"] != "" {
			t.Errorf("an invisible name was stored as %q", c["client_name"])
		}

		id := c["client_id"].(string)
		for _, bad := range badNames {
			refused(e.Backend("PUT", "/v1/m2m/clients/"+id, map[string]any{"client_name": bad}), "client_name")
		}
		for _, bad := range badDescriptions {
			refused(e.Backend("PUT", "/v1/m2m/clients/"+id, map[string]any{"client_name": "Renamed", "client_description": bad}), "client_description")
		}
		if got := e.Backend("GET", "/v1/m2m/clients/"+id, nil).Body["m2m_client"].(map[string]any); got["client_name"] != "" || got["client_description"] != para {
			t.Errorf("refused updates changed the client: %q / %q", got["client_name"], got["client_description"])
		}
	})
}

// A field of the wrong type is named as the client wrote it: the request
// types embed m2m.Fields, whose Go name is no field of the API.
func TestWrongTypeNamesTheField(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		for _, c := range []struct {
			body           map[string]any
			field, message string
		}{
			{map[string]any{"scopes": "read"}, "scopes", "scopes must be a list."},
			{map[string]any{"scopes": []any{"read", 5}}, "scopes[1]", "scopes[1] must be a string."},
			{map[string]any{"scopes": []string{"read"}, "client_name": 5}, "client_name", "client_name must be a string."},
			{map[string]any{"scopes": []string{"read"}, "trusted_metadata": []string{}}, "trusted_metadata", "trusted_metadata must be a JSON object."},
		} {
			r := e.Backend("POST", "/v1/m2m/clients", c.body)
			apptest.Want(t, r, 400, "invalid_request")
			if d, _ := r.Body["error_details"].(map[string]any); d["field"] != c.field || r.Body["error_message"] != c.message {
				t.Errorf("%v: %q naming %v, want %q naming %s", c.body, r.Body["error_message"], d["field"], c.message, c.field)
			}
		}
	})
}
