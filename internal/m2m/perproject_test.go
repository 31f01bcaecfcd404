package m2m_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A client id the customer chooses is its project's, not the server's:
// two projects hold the same one side by side, each client answers only
// at its own project's token endpoint with its own secret, its tokens are
// only its project's, and what one project does to its client (update,
// rotation, delete) never reaches the other's. Within one project the id
// stays unique.
func TestChosenClientIDIsPerProject(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		a, b := tenant{e, e.Project}, tenant{e, e.NewProject("Neighbour")}
		const id = "nightly-reports"
		secretA, secretB := "tenant-a-4fK9qLm2Vx8Rt-Jw5cN3hB7dZp", "tenant-b-7Hs3WpZ6nQ1Ye-Gm2kT9vR4xLq"
		for _, c := range []struct {
			tenant
			secret, name string
		}{{a, secretA, "A's job"}, {b, secretB, "B's job"}} {
			apptest.Want(t, c.backend("POST", "/v1/m2m/clients", map[string]any{"client_id": id, "client_secret": c.secret,
				"client_name": c.name, "scopes": []string{"read"}}), 200, "")
		}
		apptest.Want(t, a.backend("POST", "/v1/m2m/clients", map[string]any{"client_id": id, "scopes": []string{"x"}}), 400, "duplicate_m2m_client_id")

		tokA, tokB := a.token(id, secretA, ""), b.token(id, secretB, "")
		apptest.Want(t, tokA, 200, "")
		apptest.Want(t, tokB, 200, "")
		for _, r := range []apptest.Resp{a.token(id, secretB, ""), b.token(id, secretA, "")} {
			if r.Status != 401 || r.Body["error"] != "invalid_client" {
				t.Fatalf("a secret at the other project's endpoint: %s", r.Raw)
			}
		}
		// A's token is A's client's, and no resource server of B takes it.
		if c, err := a.verify(t, tokA.Body["access_token"].(string)); err != nil || c.Subject != id {
			t.Fatalf("A's token at A: %v %+v", err, c)
		}
		if _, err := b.verify(t, tokA.Body["access_token"].(string)); err == nil {
			t.Fatal("A's token verified as B's client")
		}

		// Update, rotation and delete in A leave B's client as it was.
		before := b.client(t, id)
		untouched := func(step string) {
			t.Helper()
			if d := cmp.Diff(before, b.client(t, id)); d != "" {
				t.Fatalf("B's client after A's %s (-before +after):\n%s", step, d)
			}
			apptest.Want(t, b.token(id, secretB, ""), 200, "")
		}
		apptest.Want(t, a.backend("PUT", "/v1/m2m/clients/"+id, map[string]any{"client_name": "Renamed", "status": "inactive"}), 200, "")
		untouched("update")
		apptest.Want(t, a.backend("PUT", "/v1/m2m/clients/"+id, map[string]any{"status": "active"}), 200, "")
		apptest.Want(t, a.backend("POST", "/v1/m2m/clients/"+id+"/secrets/rotate/start", nil), 200, "")
		untouched("rotation start")
		apptest.Want(t, a.backend("POST", "/v1/m2m/clients/"+id+"/secrets/rotate", nil), 200, "")
		if r := a.token(id, secretA, ""); r.Status != 401 {
			t.Fatalf("A's old secret after A's rotation: %s", r.Raw)
		}
		untouched("rotation")
		apptest.Want(t, a.backend("DELETE", "/v1/m2m/clients/"+id, nil), 200, "")
		apptest.Want(t, a.backend("GET", "/v1/m2m/clients/"+id, nil), 404, "m2m_client_not_found")
		untouched("delete")
	})
}
