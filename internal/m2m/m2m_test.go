package m2m_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

func TestClientsAndClientCredentials(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		r := e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Reporter", "scopes": []string{"read:reports", "write:reports"}})
		apptest.Want(t, r, 200, "")
		c := r.Body["m2m_client"].(map[string]any)
		id, secret := c["client_id"].(string), c["client_secret"].(string)
		if c["status"] != "active" || c["client_secret_last_four"] != secret[len(secret)-4:] {
			t.Fatalf("create: %s", r.Raw)
		}
		apptest.Want(t, e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "No scopes"}), 400, "invalid_request")
		apptest.Want(t, e.Backend("POST", "/v1/m2m/clients", map[string]any{"scopes": []string{"a b"}}), 400, "invalid_m2m_client_scope")
		apptest.Want(t, e.Backend("PUT", "/v1/m2m/clients/"+id, map[string]any{"scopes": []string{""}}), 400, "invalid_m2m_client_scope")
		apptest.Want(t, e.Backend("POST", "/v1/m2m/clients", map[string]any{"scopes": []string{"x"}, "client_secret": "short"}), 400, "insecure_m2m_client_secret")
		apptest.Want(t, e.Backend("POST", "/v1/m2m/clients", map[string]any{"scopes": []string{"x"}, "client_id": id}), 400, "duplicate_m2m_client_id")

		token := tenant{e, e.Project}.token
		ok := token(id, secret, "read:reports")
		apptest.Want(t, ok, 200, "")
		if ok.Body["scope"] != "read:reports" || ok.Body["expires_in"] != float64(3600) {
			t.Fatalf("token: %s", ok.Raw)
		}
		if all := token(id, secret, ""); all.Body["scope"] != "read:reports write:reports" {
			t.Fatalf("default scopes: %s", all.Raw)
		}
		if r := token(id, secret, "admin"); r.Status != 400 || r.Body["error"] != "invalid_scope" {
			t.Fatalf("scope beyond the client's: %s", r.Raw)
		}
		if r := token(id, "wrong", ""); r.Status != 401 || r.Body["error"] != "invalid_client" {
			t.Fatalf("wrong secret: %s", r.Raw)
		}
		apptest.Want(t, e.Backend("PUT", "/v1/m2m/clients/"+id, map[string]any{"status": "inactive"}), 200, "")
		if r := token(id, secret, ""); r.Status != 401 {
			t.Fatalf("inactive client: %s", r.Raw)
		}
		apptest.Want(t, e.Backend("PUT", "/v1/m2m/clients/"+id, map[string]any{"status": "active", "scopes": []string{"read:reports"}}), 200, "")

		// Rotation: both secrets during, only the next after.
		r = e.Backend("POST", "/v1/m2m/clients/"+id+"/secrets/rotate/start", nil)
		apptest.Want(t, r, 200, "")
		next := r.Body["m2m_client"].(map[string]any)["next_client_secret"].(string)
		apptest.Want(t, token(id, secret, ""), 200, "")
		apptest.Want(t, token(id, next, ""), 200, "")
		apptest.Want(t, e.Backend("POST", "/v1/m2m/clients/"+id+"/secrets/rotate", nil), 200, "")
		if r := token(id, secret, ""); r.Status != 401 {
			t.Fatalf("old secret after rotation: %s", r.Raw)
		}

		// Search by scope and name, AND/OR.
		e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Other", "scopes": []string{"x"}})
		search := func(q map[string]any) int {
			r := e.Backend("POST", "/v1/m2m/clients/search", map[string]any{"query": q})
			apptest.Want(t, r, 200, "")
			return len(r.Body["m2m_clients"].([]any))
		}
		if n := search(map[string]any{"operator": "AND", "operands": []any{map[string]any{"filter_name": "scopes", "filter_value": []string{"read:reports"}}}}); n != 1 {
			t.Fatalf("by scope: %d", n)
		}
		if n := search(map[string]any{"operator": "OR", "operands": []any{map[string]any{"filter_name": "client_name", "filter_value": []string{"Other"}},
			map[string]any{"filter_name": "client_id", "filter_value": []string{id}}}}); n != 2 {
			t.Fatalf("OR: %d", n)
		}
		if n := search(map[string]any{"operator": "AND", "operands": []any{map[string]any{"filter_name": "client_name", "filter_value": []string{"Other"}},
			map[string]any{"filter_name": "client_id", "filter_value": []string{id}}}}); n != 0 {
			t.Fatalf("AND: %d", n)
		}
		apptest.Want(t, e.Backend("DELETE", "/v1/m2m/clients/"+id, nil), 200, "")
		apptest.Want(t, e.Backend("GET", "/v1/m2m/clients/"+id, nil), 404, "m2m_client_not_found")
	})
}

// A status other than active or inactive is refused, and rotation steps
// out of order (complete or cancel with none started, start twice) are
// refused rather than silent no-ops, with the API family's types.
func TestStatusAndRotationOrder(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		r := e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Job", "scopes": []string{"read:x"}})
		apptest.Want(t, r, 200, "")
		path := "/v1/m2m/clients/" + r.Body["m2m_client"].(map[string]any)["client_id"].(string)
		apptest.Want(t, e.Backend("PUT", path, map[string]any{"status": "suspended"}), 400, "invalid_m2m_client_status")
		apptest.Want(t, e.Backend("POST", "/v1/m2m/clients", map[string]any{"scopes": []string{"x"}, "status": "paused"}), 400, "invalid_m2m_client_status")
		apptest.Want(t, e.Backend("POST", path+"/secrets/rotate", nil), 400, "m2m_client_not_rotating_secret")
		apptest.Want(t, e.Backend("POST", path+"/secrets/rotate/cancel", nil), 400, "m2m_client_not_rotating_secret")
		apptest.Want(t, e.Backend("POST", path+"/secrets/rotate/start", nil), 200, "")
		apptest.Want(t, e.Backend("POST", path+"/secrets/rotate/start", nil), 400, "m2m_client_already_rotating_secret")
		apptest.Want(t, e.Backend("POST", "/v1/m2m/clients/m2m-client-test-nope/secrets/rotate/start", nil), 404, "m2m_client_not_found")
	})
}
