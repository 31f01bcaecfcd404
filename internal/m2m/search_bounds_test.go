package m2m_test

import (
	"fmt"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A client search takes the organization search's bounds: at most 50
// operands and 1,000 distinct filter values across them (an operand's
// repeats count once). Past either it is refused with invalid_request on
// query.operands (naming the operand that crossed the values bound); at
// the bounds it is answered.
func TestSearchBounds(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		r := e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Reports", "scopes": []string{"read:reports"}})
		apptest.Want(t, r, 200, "")
		id := r.Body["m2m_client"].(map[string]any)["client_id"].(string)
		values := func(n, distinct int, last string) []string {
			out := make([]string, n)
			for i := range out {
				out[i] = fmt.Sprintf("v%d", i%distinct)
			}
			out[n-1] = last
			return out
		}
		op := func(name string, vals []string) map[string]any {
			return map[string]any{"filter_name": name, "filter_value": vals}
		}
		search := func(operator string, ops ...map[string]any) apptest.Resp {
			return e.Backend("POST", "/v1/m2m/clients/search", map[string]any{"query": map[string]any{"operator": operator, "operands": ops}})
		}
		refused := func(name string, r apptest.Resp, filterName string) {
			t.Helper()
			apptest.Want(t, r, 400, "invalid_request")
			d, _ := r.Body["error_details"].(map[string]any)
			if d["field"] != "query.operands" || (filterName != "" && d["filter_name"] != filterName) {
				t.Errorf("%s: %s", name, r.Raw)
			}
		}
		matches := func(name string, r apptest.Resp, want int) {
			t.Helper()
			apptest.Want(t, r, 200, "")
			if got := len(r.Body["m2m_clients"].([]any)); got != want {
				t.Errorf("%s: %d clients, want %d", name, got, want)
			}
		}

		ops := make([]map[string]any, 51)
		for i := range ops {
			ops[i] = op("client_id", []string{id})
		}
		refused("51 operands", search("OR", ops...), "")
		matches("50 operands", search("OR", ops[:50]...), 1)

		refused("1,001 values in one operand", search("OR", op("scopes", values(1001, 1001, "read:reports"))), "scopes")
		refused("1,001 values across operands", search("OR", op("client_id", values(600, 600, id)),
			op("client_name", values(401, 401, "Reports"))), "client_name")
		// 3,000 values of which 1,000 distinct, the last of them a match.
		matches("1,000 distinct values", search("OR", op("scopes", values(3000, 999, "read:reports"))), 1)
		matches("1,000 distinct values, no match", search("AND", op("client_id", values(500, 500, id)),
			op("scopes", values(500, 500, "write:reports"))), 0)
	})
}
