package idp_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
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
// and an M2M client still authenticate with their secrets. (An M2M client
// whose secret was chosen is refused at the stranger's own address while
// the address's allowance is spent: see
// TestChosenM2MSecretsAreGuessedOnlyWithinTheAllowance.)
func TestStrangerCannotLockOutAClient(t *testing.T) {
	apptest.EachWith(t, func(c *config.Config) { c.TrustedProxies = "127.0.0.1" }, func(t *testing.T, e *apptest.Env) {
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
		elsewhere := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "X-Forwarded-For": {"203.0.113.7"}}
		apptest.Want(t, e.Do("POST", tokenPath, url.Values{"grant_type": {"client_credentials"}}.Encode(), elsewhere,
			m["client_id"].(string), m["client_secret"].(string)), 200, "")
	})
}

// An M2M client may bring its own secret, which may be guessable: there
// the address's allowance is checked before the secret, so once it is
// spent even the right secret gets no answer from that address, while
// another address still authenticates.
func TestChosenM2MSecretsAreGuessedOnlyWithinTheAllowance(t *testing.T) {
	apptest.EachWith(t, func(c *config.Config) { c.TrustedProxies = "127.0.0.1" }, func(t *testing.T, e *apptest.Env) {
		const chosen = "correct-horse-battery-staple-1234567890"
		r := e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Job", "scopes": []string{"read:x"},
			"client_id": "job-1", "client_secret": chosen})
		apptest.Want(t, r, 200, "")
		tokenPath := "/v1/public/" + e.Project.Project.ID + "/oauth2/token"
		token := func(secret string, h http.Header) apptest.Resp {
			h.Set("Content-Type", "application/x-www-form-urlencoded")
			return e.Do("POST", tokenPath, url.Values{"grant_type": {"client_credentials"}}.Encode(), h, "job-1", secret)
		}
		guesser := func() http.Header { return http.Header{"X-Forwarded-For": {"198.51.100.4"}} }
		for range idp.ClientSecretFailuresPerIP.Limit {
			oauthErr(t, token("wrong-guess-wrong-guess-wrong-guess", guesser()), 401, "invalid_client")
		}
		oauthErr(t, token(chosen, guesser()), 429, "slow_down")
		apptest.Want(t, token(chosen, http.Header{"X-Forwarded-For": {"203.0.113.7"}}), 200, "")
	})
}

// The token endpoint belongs to one project (its issuer path names it),
// and per-address limits are keyed projectID|address: wrong client
// secrets sent to another project's endpoint from a shared address (a
// NAT, a cloud egress, now a whole IPv6 /64) must not lock this project's
// M2M client, which brings its own secret and is refused even with it
// once the address is out of allowance (Guard, not GuardUnguessable).
func TestOtherProjectsClientFailuresDoNotLockOutM2M(t *testing.T) {
	apptest.EachWith(t, func(c *config.Config) { c.TrustedProxies = "127.0.0.1" }, func(t *testing.T, e *apptest.Env) {
		const chosen = "correct-horse-battery-staple-1234567890"
		apptest.Want(t, e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Job", "scopes": []string{"read:x"},
			"client_id": "job-1", "client_secret": chosen}), 200, "")
		other := e.NewProject("Other")
		shared := func() http.Header {
			return http.Header{"X-Forwarded-For": {"198.51.100.4"}, "Content-Type": {"application/x-www-form-urlencoded"}}
		}
		body := url.Values{"grant_type": {"client_credentials"}}.Encode()
		otherPath := "/v1/public/" + other.Project.ID + "/oauth2/token"
		for range idp.ClientSecretFailuresPerIP.Limit {
			oauthErr(t, e.Do("POST", otherPath, body, shared(), "someone-elses-job", "wrong-guess"), 401, "invalid_client")
		}
		ownPath := "/v1/public/" + e.Project.Project.ID + "/oauth2/token"
		apptest.Want(t, e.Do("POST", ownPath, body, shared(), "job-1", chosen), 200, "")
	})
}

// The per-address rule counts failures only: machines behind one address
// that ask for M2M tokens with their right secret, however often, never
// spend the allowance, and wrong secrets from that address are still
// refused once they have.
func TestRightM2MSecretsSpendNoAllowance(t *testing.T) {
	apptest.EachWith(t, func(c *config.Config) { c.TrustedProxies = "127.0.0.1" }, func(t *testing.T, e *apptest.Env) {
		const chosen = "correct-horse-battery-staple-1234567890"
		apptest.Want(t, e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Job", "scopes": []string{"read:x"},
			"client_id": "job-1", "client_secret": chosen}), 200, "")
		tokenPath := "/v1/public/" + e.Project.Project.ID + "/oauth2/token"
		token := func(secret string) apptest.Resp {
			h := http.Header{"X-Forwarded-For": {"198.51.100.4"}, "Content-Type": {"application/x-www-form-urlencoded"}}
			return e.Do("POST", tokenPath, url.Values{"grant_type": {"client_credentials"}}.Encode(), h, "job-1", secret)
		}
		for i := range idp.ClientSecretFailuresPerIP.Limit + 5 {
			if r := token(chosen); r.Status != 200 {
				t.Fatalf("token %d with the right secret: %s", i+1, r.Raw)
			}
		}
		for range idp.ClientSecretFailuresPerIP.Limit {
			oauthErr(t, token("wrong-guess-wrong-guess-wrong-guess"), 401, "invalid_client")
		}
		oauthErr(t, token(chosen), 429, "slow_down")
	})
}
