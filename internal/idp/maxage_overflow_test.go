package idp_test

import (
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A max_age too large for a time.Duration (over some 292 years in
// seconds) is met by any session. Multiplied into a Duration it wrapped
// negative, so a member who had just logged in was told to log in again,
// and again after doing so: an authorization that could never finish, and
// login_required to a prompt=none client.
func TestHugeMaxAgeIsMetByAFreshLogin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("first_party", nil)
		for _, maxAge := range []any{"10000000000", int64(9223372036854775807)} {
			req := authReq(id, "openid")
			req["max_age"] = maxAge
			apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, f.session), 200, "")
			req["prompt"] = "none"
			req["consent_granted"] = false
			r := e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, f.session)
			apptest.Want(t, r, 200, "")
			u, err := url.Parse(r.Data()["redirect_uri"].(string))
			if err != nil || u.Query().Get("code") == "" {
				t.Fatalf("max_age %v under prompt=none: %s", maxAge, r.Raw)
			}
			apptest.Want(t, f.exchange(id, secret, u.Query().Get("code"), verifier), 200, "")
		}
	})
}
