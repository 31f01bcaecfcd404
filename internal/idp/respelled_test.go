package idp_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An access token is read in its one canonical spelling only (the others
// go-jose would decode to the same parts and verify are not this
// server's tokens), as every JWT this server reads.
func TestRespelledAccessTokenIsInactive(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		at := f.grant(id, secret, "openid").Body["access_token"].(string)
		for name, s := range apptest.Respellings(t, at) {
			if f.active(id, secret, s) {
				t.Errorf("%s: introspected as active", name)
			}
		}
		if !f.active(id, secret, at) {
			t.Fatal("the access token itself is not active")
		}
	})
}
