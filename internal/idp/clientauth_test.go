package idp_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A public client has no secret: one that presents a secret anyway is
// invalid_client, at the token endpoint as at introspection.
func TestPublicClientPresentingASecretIsRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		pub, _ := f.client("third_party_public", nil)
		_, back := f.authorize(authReq(pub, "openid"), true)
		oauthErr(t, f.exchange(pub, "made-up-secret", back.Get("code"), verifier), 401, "invalid_client")
		oauthErr(t, f.form("/oauth2/introspect", pub, "made-up-secret", url.Values{"token": {"x"}}), 401, "invalid_client")
	})
}

// Introspection answers authenticated clients only (RFC 7662 2.1): a wrong
// secret is invalid_client, not a description of the token.
func TestIntrospectionRequiresClientAuthentication(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		at := f.grant(id, secret, "openid").Body["access_token"].(string)
		oauthErr(t, f.form("/oauth2/introspect", id, "wrong", url.Values{"token": {at}}), 401, "invalid_client")
	})
}

// One client authentication method per request (RFC 6749 2.3): Basic with
// a client_secret in the form is invalid_request, and so is Basic for one
// client with another client_id in the form.
func TestOneClientAuthenticationMethod(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		other, _ := f.client("third_party", nil)
		post := func(v url.Values) apptest.Resp {
			return e.Do("POST", "/v1/public/"+e.Project.Project.ID+"/oauth2/revoke", v.Encode(),
				http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, url.QueryEscape(id), url.QueryEscape(secret))
		}
		oauthErr(t, post(url.Values{"token": {"x"}, "client_secret": {secret}}), 400, "invalid_request")
		oauthErr(t, post(url.Values{"token": {"x"}, "client_id": {other}}), 400, "invalid_request")
		apptest.Want(t, post(url.Values{"token": {"x"}, "client_id": {id}}), 200, "")
	})
}
