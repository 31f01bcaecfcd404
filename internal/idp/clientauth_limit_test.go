package idp_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/idp"
)

// Wrong client secrets are limited per address: misses spread over
// clients spend the address's allowance, after which another miss from it
// is refused with slow_down instead of answered. A right secret still
// passes there: client secrets cannot be guessed, so the limit only slows
// a scanner down and never refuses a real client.
func TestClientSecretFailuresLimitedPerAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		a, aSecret := f.client("third_party", nil)
		b, _ := f.client("third_party", nil)
		c, cSecret := f.client("third_party", nil)
		revoke := func(id, secret string) apptest.Resp {
			return f.form("/oauth2/revoke", id, secret, url.Values{"token": {"unknown"}})
		}
		for i := range idp.ClientSecretFailuresPerIP.Limit {
			oauthErr(t, revoke([]string{a, b}[i%2], "wrong"), 401, "invalid_client")
		}
		oauthErr(t, revoke(c, "wrong"), 429, "slow_down") // the address is out of allowance
		oauthErr(t, revoke("connected-app-test-unknown", "wrong"), 429, "slow_down")
		apptest.Want(t, revoke(a, aSecret), 200, "")
		apptest.Want(t, revoke(c, cSecret), 200, "")
	})
}

// Anyone who knows a client_id (it is in every authorization URL) can send
// it with a made-up secret; however many times they do, the real client
// is not locked out: a public client still redeems its code (it sends no
// secret, so a stranger sending one is a failure), a confidential client
// and an M2M client still authenticate with their secrets.
func TestStrangerCannotLockOutAClient(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		pub, _ := f.client("third_party_public", nil)
		conf, confSecret := f.client("third_party", nil)
		tokenPath := "/v1/public/" + e.Project.Project.ID + "/oauth2/token"
		formHeader := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
		_, back := f.authorize(authReq(pub, "openid"), true)
		for range idp.ClientSecretFailuresPerIP.Limit + 5 {
			v := url.Values{"grant_type": {"authorization_code"}, "code": {"x"}, "redirect_uri": {rpURL},
				"client_id": {pub}, "client_secret": {"bogus"}}
			e.Do("POST", tokenPath, v.Encode(), formHeader, "", "")
			f.form("/oauth2/revoke", conf, "bogus", url.Values{"token": {"unknown"}})
		}
		apptest.Want(t, f.exchange(pub, "", back.Get("code"), verifier), 200, "")
		apptest.Want(t, f.form("/oauth2/revoke", conf, confSecret, url.Values{"token": {"unknown"}}), 200, "")

		r := e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Job", "scopes": []string{"read:x"}})
		apptest.Want(t, r, 200, "")
		m := r.Body["m2m_client"].(map[string]any)
		token := func(secret string) apptest.Resp {
			return e.Do("POST", tokenPath, url.Values{"grant_type": {"client_credentials"}}.Encode(), formHeader,
				m["client_id"].(string), secret)
		}
		for range idp.ClientSecretFailuresPerIP.Limit {
			token("wrong")
		}
		oauthErr(t, token("wrong"), 429, "slow_down")
		apptest.Want(t, token(m["client_secret"].(string)), 200, "")
	})
}
