package session_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A session JWT is read in its one canonical spelling only: the others,
// which go-jose would decode to the same parts and verify, are refused,
// whether the JWT was verified (and remembered by its text) before or
// not. Otherwise each spelling would take an entry of the verified cache.
func TestRespelledSessionJWTRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		_, jwt, _ := e.Login(org, "ada@acme.test")
		spellings := apptest.Respellings(t, jwt)
		refused := func() {
			for name, s := range spellings {
				t.Run(name, func(t *testing.T) { apptest.Want(t, check(e, "", s), 401, "unable_to_parse_session_jwt") })
			}
		}
		refused()
		apptest.Want(t, check(e, "", jwt), 200, "")
		refused()
	})
}
