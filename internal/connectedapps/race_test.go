package connectedapps_test

import (
	"fmt"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A client change reads the client and writes every mutable column back.
// On PostgreSQL (READ COMMITTED) one that read the row before a
// concurrent change committed put the older values back: a rename undid
// new redirect URLs or a rotation, and several rotation starts each
// "succeeded" with a secret of their own. Changes now read the row locked
// and apply one after another.
func TestConcurrentAppChangesAreAllKept(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		create := func() string {
			return app(t, e.Backend("POST", "/v1/connected_apps/clients", map[string]any{"client_type": "first_party",
				"client_name": "RP", "redirect_urls": []string{"https://rp.test/cb"}}))["client_id"].(string)
		}
		get := func(id string) map[string]any { return app(t, e.Backend("GET", "/v1/connected_apps/clients/"+id, nil)) }
		rename := func(id string) apptest.Resp {
			return e.Backend("PUT", "/v1/connected_apps/clients/"+id, map[string]any{"client_name": "renamed"})
		}

		t.Run("rotation starts", func(t *testing.T) {
			id := create()
			var next []string
			for _, r := range apptest.Together(8, func(int) apptest.Resp {
				return e.Backend("POST", "/v1/connected_apps/clients/"+id+"/secrets/rotate/start", nil)
			}) {
				if r.Status == 200 {
					next = append(next, r.Body["connected_app"].(map[string]any)["next_client_secret"].(string))
				} else {
					apptest.Want(t, r, 400, "connected_app_already_rotating_secret")
				}
			}
			if len(next) != 1 {
				t.Fatalf("%d concurrent rotation starts succeeded, want 1", len(next))
			}
			if got := get(id)["next_client_secret_last_four"]; got != next[0][len(next[0])-4:] {
				t.Fatalf("stored next secret ends %v, the start returned one ending %s", got, next[0][len(next[0])-4:])
			}
		})

		for round := range 6 {
			t.Run(fmt.Sprint("redirect URLs and rename ", round), func(t *testing.T) {
				id := create()
				apptest.Together(2, func(i int) apptest.Resp {
					if i == 0 {
						return e.Backend("PUT", "/v1/connected_apps/clients/"+id, map[string]any{"redirect_urls": []string{"https://rp.test/new"}})
					}
					return rename(id)
				})
				a := get(id)
				if urls, _ := a["redirect_urls"].([]any); a["client_name"] != "renamed" || len(urls) != 1 || urls[0] != "https://rp.test/new" {
					t.Fatalf("one change lost: name %v, redirect_urls %v", a["client_name"], a["redirect_urls"])
				}
			})
			t.Run(fmt.Sprint("rotation complete and rename ", round), func(t *testing.T) {
				id := create()
				s := app(t, e.Backend("POST", "/v1/connected_apps/clients/"+id+"/secrets/rotate/start", nil))
				next := s["next_client_secret"].(string)
				apptest.Together(2, func(i int) apptest.Resp {
					if i == 0 {
						return e.Backend("POST", "/v1/connected_apps/clients/"+id+"/secrets/rotate", nil)
					}
					return rename(id)
				})
				a := get(id)
				if a["client_secret_last_four"] != next[len(next)-4:] || a["next_client_secret_last_four"] != nil {
					t.Fatalf("completed rotation undone: secret ends %v, next %v", a["client_secret_last_four"], a["next_client_secret_last_four"])
				}
			})
		}
	})
}
