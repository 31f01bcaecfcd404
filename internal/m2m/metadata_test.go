package m2m_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An M2M client's trusted_metadata follows the API family's metadata rule,
// as the client docs say: an update merges at the top level, null deletes
// a key, and the limits hold for the result (a refused update changes
// nothing).
func TestClientMetadataMerges(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		r := e.Backend("POST", "/v1/m2m/clients", map[string]any{"scopes": []string{"read:reports"},
			"trusted_metadata": map[string]any{"team": "bi", "tier": "gold", "gone": nil}})
		apptest.Want(t, r, 200, "")
		id := r.Body["m2m_client"].(map[string]any)["client_id"].(string)
		metadataIs := func(want map[string]any) {
			t.Helper()
			g := e.Backend("GET", "/v1/m2m/clients/"+id, nil)
			apptest.Want(t, g, 200, "")
			if diff := cmp.Diff(want, g.Body["m2m_client"].(map[string]any)["trusted_metadata"]); diff != "" {
				t.Fatalf("trusted_metadata (-want +got):\n%s", diff)
			}
		}
		metadataIs(map[string]any{"team": "bi", "tier": "gold"})
		apptest.Want(t, e.Backend("PUT", "/v1/m2m/clients/"+id, map[string]any{"trusted_metadata": map[string]any{"tier": nil, "region": "eu"}}), 200, "")
		metadataIs(map[string]any{"team": "bi", "region": "eu"})
		many := map[string]any{}
		for i := range 19 {
			many[fmt.Sprintf("k%02d", i)] = 1
		}
		apptest.Want(t, e.Backend("PUT", "/v1/m2m/clients/"+id, map[string]any{"trusted_metadata": many}), 400, "metadata_too_many_keys")
		metadataIs(map[string]any{"team": "bi", "region": "eu"})
	})
}
