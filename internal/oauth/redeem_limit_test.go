package oauth_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
)

// A customer's server redeems all its users' OAuth tokens from its own
// address, with the project secret, and any visitor can make its callback
// relay a stale token (a reload of a spent callback URL). Counted against
// that address, RedeemLimit of them would lock OAuth login out for every
// user of the customer for the window: on the backend face the failures
// are not counted per address.
func TestBackendOAuthRedeemFailuresDoNotLockOutTheCustomer(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		for i := range flowtoken.RedeemLimit.Limit + 1 {
			r := e.Backend(http.MethodPost, "/v1/b2b/oauth/authenticate", map[string]any{"oauth_token": fmt.Sprintf("stale-%d", i)})
			if r.ErrType() != "oauth_token_not_found" {
				t.Fatalf("stale token %d from the customer's server: %d %s, want oauth_token_not_found", i+1, r.Status, r.Raw)
			}
		}
	})
}
