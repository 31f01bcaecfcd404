package m2m_test

import (
	"fmt"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A client change reads the client and writes every mutable column back
// (status, secrets, metadata). On PostgreSQL (READ COMMITTED) a change
// that read the row before a concurrent one committed wrote the older
// values back over it: a deactivation or a completed rotation undone by a
// rename, a started rotation whose next secret never worked, several
// rotation starts "succeeding". Each change now reads the row locked, so
// concurrent changes of one client apply one after another.
func TestConcurrentClientChangesAreAllKept(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		c := tenant{e, e.Project}
		create := func() (string, string) {
			r := c.backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "svc", "scopes": []string{"read:x"}})
			apptest.Want(t, r, 200, "")
			m := r.Body["m2m_client"].(map[string]any)
			return m["client_id"].(string), m["client_secret"].(string)
		}
		put := func(id string, body map[string]any) apptest.Resp {
			return c.backend("PUT", "/v1/m2m/clients/"+id, body)
		}

		t.Run("metadata merges", func(t *testing.T) {
			id, _ := create()
			const n = 12
			for _, r := range apptest.Together(n, func(i int) apptest.Resp {
				return put(id, map[string]any{"trusted_metadata": map[string]any{fmt.Sprint("k", i): i}})
			}) {
				apptest.Want(t, r, 200, "")
			}
			if md := c.client(t, id)["trusted_metadata"].(map[string]any); len(md) != n {
				t.Fatalf("%d concurrent merges of different keys kept %d: %v", n, len(md), md)
			}
		})

		t.Run("rotation starts", func(t *testing.T) {
			id, _ := create()
			var next []string
			for _, r := range apptest.Together(8, func(int) apptest.Resp {
				return c.backend("POST", "/v1/m2m/clients/"+id+"/secrets/rotate/start", nil)
			}) {
				if r.Status == 200 {
					next = append(next, r.Body["m2m_client"].(map[string]any)["next_client_secret"].(string))
				} else {
					apptest.Want(t, r, 400, "m2m_client_already_rotating_secret")
				}
			}
			if len(next) != 1 {
				t.Fatalf("%d concurrent rotation starts succeeded, want 1", len(next))
			}
			apptest.Want(t, c.token(id, next[0], ""), 200, "")
		})

		for round := range 6 {
			t.Run(fmt.Sprint("deactivation and rename ", round), func(t *testing.T) {
				id, secret := create()
				apptest.Together(2, func(i int) apptest.Resp {
					if i == 0 {
						return put(id, map[string]any{"status": "inactive"})
					}
					return put(id, map[string]any{"client_name": "renamed"})
				})
				if got := c.client(t, id); got["status"] != "inactive" || got["client_name"] != "renamed" {
					t.Fatalf("one change lost: status %v, name %v", got["status"], got["client_name"])
				}
				if r := c.token(id, secret, ""); r.Status != 401 {
					t.Fatalf("deactivated client: token answer %d", r.Status)
				}
			})
			t.Run(fmt.Sprint("rotation start and rename ", round), func(t *testing.T) {
				id, _ := create()
				rs := apptest.Together(2, func(i int) apptest.Resp {
					if i == 0 {
						return c.backend("POST", "/v1/m2m/clients/"+id+"/secrets/rotate/start", nil)
					}
					return put(id, map[string]any{"client_name": "renamed"})
				})
				apptest.Want(t, rs[0], 200, "")
				next := rs[0].Body["m2m_client"].(map[string]any)["next_client_secret"].(string)
				if r := c.token(id, next, ""); r.Status != 200 {
					t.Fatalf("the next secret a start returned does not work: %s", r.Raw)
				}
			})
			t.Run(fmt.Sprint("rotation complete and rename ", round), func(t *testing.T) {
				id, old := create()
				apptest.Want(t, c.backend("POST", "/v1/m2m/clients/"+id+"/secrets/rotate/start", nil), 200, "")
				apptest.Together(2, func(i int) apptest.Resp {
					if i == 0 {
						return c.backend("POST", "/v1/m2m/clients/"+id+"/secrets/rotate", nil)
					}
					return put(id, map[string]any{"client_name": "renamed"})
				})
				if r := c.token(id, old, ""); r.Status != 401 {
					t.Fatalf("the secret a completed rotation retired: token answer %d", r.Status)
				}
			})
		}
	})
}
