package m2m_test

import (
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A chosen client_id is 1 to 128 URL unreserved characters, and not "."
// or "..": the id is a path segment of every management route, which the
// router cleans, so such a client could be created but never read,
// updated, rotated or deleted again, while its token endpoint still issued
// tokens. Whitespace, controls and bidirectional formatting would mislead
// whoever reads the id in a log or a token. Every refusal is
// invalid_request on client_id, and stores nothing.
func TestChosenClientIDRule(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		a := tenant{e, e.Project}
		create := func(id string) apptest.Resp {
			t.Helper()
			return a.backend("POST", "/v1/m2m/clients", map[string]any{"client_id": id, "scopes": []string{"read"}})
		}
		for name, id := range map[string]string{
			"dot":                  ".",
			"dot dot":              "..",
			"a space":              "nightly reports",
			"leading space":        " nightly",
			"a tab":                "nightly\treports",
			"a newline":            "nightly\nreports",
			"a control character":  "nightly\x01",
			"a bidi override":      "nightly\u202ereports",
			"a colon (Basic auth)": "nightly:reports",
			"a slash":              "nightly/reports",
			"a percent":            "nightly%2e",
			"non-ASCII":            "nächtlich",
			"129 characters":       strings.Repeat("a", 129),
			"20,000 characters":    strings.Repeat("a", 20000),
		} {
			r := create(id)
			d, _ := r.Body["error_details"].(map[string]any)
			if r.Status != 400 || r.ErrType() != "invalid_request" || d["field"] != "client_id" {
				t.Errorf("%s: %d %s", name, r.Status, r.Raw)
			}
		}
		if n := e.Count(`SELECT COUNT(*) FROM m2m_clients`); n != 0 {
			t.Fatalf("refused ids stored %d clients", n)
		}

		// Every unreserved character, up to 128 of them, is taken, and the
		// client is reachable by its id on every route.
		for _, id := range []string{"a", "...", "Nightly.Reports_v2~-", strings.Repeat("z", 128)} {
			r := create(id)
			apptest.Want(t, r, 200, "")
			secret := r.Body["m2m_client"].(map[string]any)["client_secret"].(string)
			if got := a.client(t, id)["client_id"]; got != id {
				t.Fatalf("%q read back as %v", id, got)
			}
			apptest.Want(t, a.token(id, secret, ""), 200, "")
			apptest.Want(t, a.backend("DELETE", "/v1/m2m/clients/"+id, nil), 200, "")
		}
	})
}
