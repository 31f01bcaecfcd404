package idp_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/idp"
)

// A public client authenticates with its client_id alone, so the refresh
// tokens it presents that refresh nothing, and the tokens it introspects
// that are not active, count against its address (PublicTokenFailuresPerIP,
// together): past the limit either is slow_down, while a live refresh
// token still refreshes and a live token still introspects as active. A
// confidential client's failures are not counted here (it proved its
// secret), however many follow.
func TestPublicClientTokenLookupsLimitedPerAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, _ := f.client("third_party_public", nil)
		rt := f.grant(id, "", "openid", "offline_access").Body["refresh_token"].(string)
		introspect := func(id, secret, token string) apptest.Resp {
			return f.form("/oauth2/introspect", id, secret, url.Values{"token": {token}})
		}
		for i := range idp.PublicTokenFailuresPerIP.Limit {
			if i%2 == 0 {
				oauthErr(t, f.refresh(id, "", fmt.Sprintf("not-a-refresh-token-%d", i), ""), 400, "invalid_grant")
				continue
			}
			if r := introspect(id, "", fmt.Sprintf("not-a-token-%d", i)); r.Status != 200 || r.Body["active"] != false {
				t.Fatalf("introspect %d: %d %s", i, r.Status, r.Raw)
			}
		}
		oauthErr(t, f.refresh(id, "", "not-a-refresh-token-either", ""), 429, "slow_down")
		oauthErr(t, introspect(id, "", "not-a-token-either"), 429, "slow_down")
		r := f.refresh(id, "", rt, "")
		apptest.Want(t, r, 200, "")
		if !f.active(id, "", r.Body["refresh_token"].(string)) {
			t.Fatalf("a live refresh token past the address's failures is not active")
		}

		cid, secret := f.client("third_party", nil)
		for i := range idp.PublicTokenFailuresPerIP.Limit + 1 {
			oauthErr(t, f.refresh(cid, secret, fmt.Sprintf("stale-%d", i), ""), 400, "invalid_grant")
			if r := introspect(cid, secret, fmt.Sprintf("stale-%d", i)); r.Status != 200 || r.Body["active"] != false {
				t.Fatalf("confidential introspect %d: %d %s", i, r.Status, r.Raw)
			}
		}
	})
}
