package idp_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

func TestCodeFlowRefreshIntrospectRevoke(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)

		// Discovery names the issuer, the operator's page and our endpoints.
		d := e.Get("/v1/public/" + e.Project.Project.ID + "/.well-known/openid-configuration")
		apptest.Want(t, d, 200, "")
		if d.Body["issuer"] != f.issuer() || d.Body["authorization_endpoint"] != page || d.Body["token_endpoint"] != f.issuer()+"/oauth2/token" {
			t.Fatalf("discovery: %s", d.Raw)
		}

		start, back := f.authorize(authReq(id, "openid", "email", "profile", "offline_access"), true)
		if start.Data()["consent_required"] != true || start.Data()["client"].(map[string]any)["client_name"] != "RP third_party" {
			t.Fatalf("start: %s", start.Raw)
		}
		if back.Get("state") != "st-1" || back.Get("iss") != f.issuer() || back.Get("code") == "" {
			t.Fatalf("redirect: %v", back)
		}
		tok := f.exchange(id, secret, back.Get("code"), verifier)
		apptest.Want(t, tok, 200, "")
		if tok.Body["token_type"] != "Bearer" || tok.Body["refresh_token"] == nil || tok.Body["scope"] != "openid email profile offline_access" {
			t.Fatalf("token: %s", tok.Raw)
		}
		if tok.Header.Get("Cache-Control") != "no-store" {
			t.Fatal("token responses must not be cached")
		}
		idt := f.claims(tok.Body["id_token"].(string))
		if idt["iss"] != f.issuer() || idt["aud"] != id || idt["sub"] != f.member || idt["nonce"] != "n-1" || idt["email"] != "ada@acme.test" {
			t.Fatalf("id token: %v", idt)
		}
		at := f.claims(tok.Body["access_token"].(string))
		org := at["https://stytch.com/organization"].(map[string]any)
		if at["iss"] != "stytch.com/"+e.Project.Project.ID || at["sub"] != f.member || org["organization_id"] != f.org || org["slug"] != "acme" {
			t.Fatalf("access token: %v", at)
		}

		ui := e.Do("GET", "/v1/public/"+e.Project.Project.ID+"/oauth2/userinfo", nil,
			http.Header{"Authorization": {"Bearer " + tok.Body["access_token"].(string)}}, "", "")
		apptest.Want(t, ui, 200, "")
		if ui.Body["sub"] != f.member || ui.Body["email"] != "ada@acme.test" || ui.Body["email_verified"] != true {
			t.Fatalf("userinfo: %s", ui.Raw)
		}

		// Introspection (RFC 7662) of the access token.
		in := f.form("/oauth2/introspect", id, secret, url.Values{"token": {tok.Body["access_token"].(string)}})
		apptest.Want(t, in, 200, "")
		if in.Body["active"] != true || in.Body["client_id"] != id || in.Body["token_type"] != "access_token" {
			t.Fatalf("introspect: %s", in.Raw)
		}

		// Refresh rotation, then reuse detection revokes the family.
		old := tok.Body["refresh_token"].(string)
		r1 := f.form("/oauth2/token", id, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {old}})
		apptest.Want(t, r1, 200, "")
		if r1.Body["refresh_token"] == old || r1.Body["id_token"] == nil {
			t.Fatalf("refresh: %s", r1.Raw)
		}
		oauthErr(t, f.form("/oauth2/token", id, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {old}}), 400, "invalid_grant")
		oauthErr(t, f.form("/oauth2/token", id, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {r1.Body["refresh_token"].(string)}}), 400, "invalid_grant")
		for _, at := range []any{tok.Body["access_token"], r1.Body["access_token"]} {
			in := f.form("/oauth2/introspect", id, secret, url.Values{"token": {at.(string)}})
			if in.Body["active"] != false {
				t.Fatalf("family member still active after reuse: %s", in.Raw)
			}
		}

		// Revocation (RFC 7009) of a fresh grant's refresh token ends its access token too.
		_, back = f.authorize(authReq(id, "openid", "offline_access"), true)
		tok = f.exchange(id, secret, back.Get("code"), verifier)
		apptest.Want(t, tok, 200, "")
		apptest.Want(t, f.form("/oauth2/revoke", id, secret, url.Values{"token": {tok.Body["refresh_token"].(string)}}), 200, "")
		if in := f.form("/oauth2/introspect", id, secret, url.Values{"token": {tok.Body["access_token"].(string)}}); in.Body["active"] != false {
			t.Fatalf("revoked family: %s", in.Raw)
		}
		apptest.Want(t, f.form("/oauth2/revoke", id, secret, url.Values{"token": {"unknown"}}), 200, "")
		oauthErr(t, f.form("/oauth2/revoke", id, "wrong", url.Values{"token": {"unknown"}}), 401, "invalid_client")
	})
}

func TestCodeRefusals(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		pub, _ := f.client("third_party_public", nil)

		// Wrong redirect URI: refused before anything is sent back.
		req := authReq(id, "openid")
		req["redirect_uri"] = "https://rp.test/cb2"
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, f.session), 400, "invalid_redirect_uri")

		// A public client must use PKCE.
		req = authReq(pub, "openid")
		delete(req, "code_challenge")
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, f.session), 400, "pkce_required_for_idp_authorization_flow")
		// ... and present the verifier.
		_, back := f.authorize(authReq(pub, "openid"), true)
		oauthErr(t, f.exchange(pub, "", back.Get("code"), ""), 400, "invalid_grant")
		oauthErr(t, f.exchange(pub, "", back.Get("code"), "wrong-verifier-wrong-verifier-wrong-verifier"), 400, "invalid_grant")
		apptest.Want(t, f.exchange(pub, "", back.Get("code"), verifier), 200, "")

		// A code used twice fails and revokes the tokens it issued.
		_, back = f.authorize(authReq(id, "openid", "offline_access"), true)
		first := f.exchange(id, secret, back.Get("code"), verifier)
		apptest.Want(t, first, 200, "")
		oauthErr(t, f.exchange(id, secret, back.Get("code"), verifier), 400, "invalid_grant")
		if in := f.form("/oauth2/introspect", id, secret, url.Values{"token": {first.Body["access_token"].(string)}}); in.Body["active"] != false {
			t.Fatalf("tokens of a replayed code stay active: %s", in.Raw)
		}
		oauthErr(t, f.form("/oauth2/token", id, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {first.Body["refresh_token"].(string)}}), 400, "invalid_grant")

		// An expired code.
		_, back = f.authorize(authReq(id, "openid"), true)
		e.Clock.Advance(61 * time.Second)
		oauthErr(t, f.exchange(id, secret, back.Get("code"), verifier), 400, "invalid_grant")

		// Redirect URI at the token endpoint must repeat the authorization's.
		_, back = f.authorize(authReq(id, "openid"), true)
		v := url.Values{"grant_type": {"authorization_code"}, "code": {back.Get("code")}, "redirect_uri": {"https://rp.test/other"}, "code_verifier": {verifier}}
		oauthErr(t, f.form("/oauth2/token", id, secret, v), 400, "invalid_grant")

		// Another client cannot redeem the code; a wrong secret is invalid_client.
		other, otherSecret := f.client("third_party", nil)
		_, back = f.authorize(authReq(id, "openid"), true)
		oauthErr(t, f.exchange(other, otherSecret, back.Get("code"), verifier), 400, "invalid_grant")
		oauthErr(t, f.exchange(id, "nope", back.Get("code"), verifier), 401, "invalid_client")

		// Deny gives access_denied to the client.
		_, back = f.authorize(authReq(id, "openid", "email"), false)
		if back.Get("error") != "access_denied" || back.Get("state") != "st-1" || back.Get("code") != "" {
			t.Fatalf("deny: %v", back)
		}
		// Unknown scopes and response types are refused.
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", authReq(id, "openid", "admin:everything"), f.session), 400, "invalid_scope")
		req = authReq(id, "openid")
		req["response_type"] = "token"
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, f.session), 400, "unsupported_response_type")
		oauthErr(t, f.form("/oauth2/token", id, secret, url.Values{"grant_type": {"password"}}), 400, "unsupported_grant_type")
	})
}
