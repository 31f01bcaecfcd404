package idp_test

import (
	"fmt"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
)

// A confidential client's server redeems the codes of all its users from
// one address, and any visitor can make it present a stale code (a reload
// of a spent callback URL): however many it presents, its other users'
// codes still redeem. A public client redeems from each user's own
// device, so there failed codes stay limited per address.
func TestStaleCodesLockOutNoUserOfAConfidentialClient(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		for _, c := range []struct {
			typ  string
			want int
		}{{"third_party", 200}, {"third_party_public", 429}} {
			id, secret := f.client(c.typ, nil)
			_, back := f.authorize(authReq(id, "openid"), true)
			for i := range flowtoken.RedeemLimit.Limit {
				oauthErr(t, f.exchange(id, secret, fmt.Sprintf("stale-%d", i), verifier), 400, "invalid_grant")
			}
			if r := f.exchange(id, secret, back.Get("code"), verifier); r.Status != c.want {
				t.Errorf("%s: a valid code after %d stale ones: %d %s, want %d", c.typ, flowtoken.RedeemLimit.Limit, r.Status, r.Raw, c.want)
			}
		}
	})
}
