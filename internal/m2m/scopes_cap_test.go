package m2m_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/m2m"
)

// A client's scopes: more than m2m.MaxScopes is a 400 naming scopes on
// create and update, and nothing is written; at the cap, repeats merge.
func TestScopesCap(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		scopes := func(n int) []string {
			out := make([]string, n)
			for i := range out {
				out[i] = fmt.Sprintf("s%d", i%(m2m.MaxScopes-1))
			}
			return out
		}
		refused := func(r apptest.Resp) {
			t.Helper()
			apptest.Want(t, r, 400, "invalid_request")
			if d, _ := r.Body["error_details"].(map[string]any); d["field"] != "scopes" {
				t.Fatalf("refusal: %s", r.Raw)
			}
		}
		refused(e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Big", "scopes": scopes(m2m.MaxScopes + 1)}))
		if n := e.Count(`SELECT COUNT(*) FROM m2m_clients`); n != 0 {
			t.Fatalf("a refused create left %d clients", n)
		}
		r := e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Small", "scopes": []string{"read"}})
		apptest.Want(t, r, 200, "")
		id := r.Body["m2m_client"].(map[string]any)["client_id"].(string)
		refused(e.Backend("PUT", "/v1/m2m/clients/"+id, map[string]any{"scopes": scopes(m2m.MaxScopes + 1)}))
		if got := e.Backend("GET", "/v1/m2m/clients/"+id, nil).Body["m2m_client"].(map[string]any)["scopes"]; !reflect.DeepEqual(got, []any{"read"}) {
			t.Fatalf("a refused update changed the scopes: %v", got)
		}
		r = e.Backend("PUT", "/v1/m2m/clients/"+id, map[string]any{"scopes": scopes(m2m.MaxScopes)})
		apptest.Want(t, r, 200, "")
		if got := r.Body["m2m_client"].(map[string]any)["scopes"].([]any); len(got) != m2m.MaxScopes-1 {
			t.Fatalf("scopes at the cap: %d", len(got))
		}
	})
}
