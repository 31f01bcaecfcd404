package idp_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/idp"
)

// Wrong client secrets are limited per client and per client address:
// after ClientSecretFailures misses a client's right secret is refused too,
// and misses spread over clients, each below its own limit, still spend the
// address's allowance, after which another client's right secret is
// refused as well.
func TestClientSecretFailuresLimited(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		a, aSecret := f.client("third_party", nil)
		b, _ := f.client("third_party", nil)
		c, cSecret := f.client("third_party", nil)
		revoke := func(id, secret string) apptest.Resp {
			return f.form("/oauth2/revoke", id, secret, url.Values{"token": {"unknown"}})
		}
		for range idp.ClientSecretFailures.Limit {
			oauthErr(t, revoke(a, "wrong"), 401, "invalid_client")
		}
		oauthErr(t, revoke(a, aSecret), 429, "slow_down") // the client is locked
		for range idp.ClientSecretFailuresPerIP.Limit - idp.ClientSecretFailures.Limit {
			oauthErr(t, revoke(b, "wrong"), 401, "invalid_client")
		}
		oauthErr(t, revoke(c, cSecret), 429, "slow_down") // the address is out of allowance
	})
}

// The client_credentials grant counts wrong M2M secrets under the same
// per-client rule: after ClientSecretFailures misses the right secret is
// refused too.
func TestM2MClientSecretFailuresLimited(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		r := e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Job", "scopes": []string{"read:x"}})
		apptest.Want(t, r, 200, "")
		c := r.Body["m2m_client"].(map[string]any)
		token := func(secret string) apptest.Resp {
			return e.Do("POST", "/v1/public/"+e.Project.Project.ID+"/oauth2/token", url.Values{"grant_type": {"client_credentials"}}.Encode(),
				http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, c["client_id"].(string), secret)
		}
		for range idp.ClientSecretFailures.Limit {
			oauthErr(t, token("wrong"), 401, "invalid_client")
		}
		oauthErr(t, token(c["client_secret"].(string)), 429, "slow_down")
	})
}
