package idp_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

func TestConsentRules(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		consent := func(id string, prompt string, scopes ...string) any {
			req := authReq(id, scopes...)
			if prompt != "" {
				req["prompt"] = prompt
			}
			r := e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, f.session)
			apptest.Want(t, r, 200, "")
			return r.Data()["consent_required"]
		}
		for _, typ := range []string{"first_party", "first_party_public"} {
			id, _ := f.client(typ, nil)
			if consent(id, "", "openid", "email") != false {
				t.Errorf("%s asks for consent", typ)
			}
			if consent(id, "consent", "openid") != true {
				t.Errorf("%s: prompt=consent must ask", typ)
			}
		}
		for _, typ := range []string{"third_party", "third_party_public"} {
			id, _ := f.client(typ, nil)
			if consent(id, "", "openid", "email") != true {
				t.Errorf("%s without consent on record", typ)
			}
			f.authorize(authReq(id, "openid", "email"), true)
			if consent(id, "", "openid", "email") != false || consent(id, "", "openid") != false {
				t.Errorf("%s: consent on record is enough", typ)
			}
			if consent(id, "", "openid", "email", "phone") != true {
				t.Errorf("%s: a new scope needs consent", typ)
			}
			if consent(id, "consent", "openid") != true {
				t.Errorf("%s: prompt=consent must ask", typ)
			}
		}
		bypass, _ := f.client("third_party", map[string]any{"bypass_consent_for_offline_access": true})
		f.authorize(authReq(bypass, "openid"), true)
		if consent(bypass, "", "openid", "offline_access") != false {
			t.Error("offline_access needs no consent when the app bypasses it")
		}

		// full_access is grantable only to apps allowed full access; asked
		// for anyway, it is left out of what is granted.
		plain, plainSecret := f.client("third_party", nil)
		r := e.SDK("POST", "/idp/b2b/oauth/authorize/start", authReq(plain, "openid", "full_access"), f.session)
		apptest.Want(t, r, 200, "")
		if res := r.Data()["scope_results"].([]any)[1].(map[string]any); res["scope"] != "full_access" || res["is_grantable"] != false {
			t.Fatalf("scope results: %s", r.Raw)
		}
		if tok := f.grant(plain, plainSecret, "openid", "full_access"); tok.Body["scope"] != "openid" {
			t.Fatalf("full_access granted to a third-party app: %s", tok.Raw)
		}

		// prompt=none: never a screen; missing consent or session comes back to the client.
		fresh, _ := f.client("third_party", nil)
		req := authReq(fresh, "openid")
		req["prompt"] = "none"
		if consent(fresh, "none", "openid") != false {
			t.Error("prompt=none must not show consent")
		}
		r = e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, f.session)
		apptest.Want(t, r, 200, "")
		if u, _ := url.Parse(r.Data()["redirect_uri"].(string)); u.Query().Get("error") != "consent_required" {
			t.Fatalf("prompt=none without consent: %s", r.Raw)
		}
		r = e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, "")
		apptest.Want(t, r, 200, "")
		if u, _ := url.Parse(r.Data()["redirect_uri"].(string)); u.Query().Get("error") != "login_required" || u.Query().Get("state") != "st-1" {
			t.Fatalf("prompt=none without session: %s", r.Raw)
		}
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", authReq(fresh, "openid"), ""), 401, "user_unauthenticated")
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, ""), 401, "login_required")
		req["redirect_uri"] = "https://evil.test/cb" // never a redirect to an unregistered URI, session or not
		if r := e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, ""); r.Status < 400 {
			t.Fatalf("prompt=none redirected to an unregistered URI: %s", r.Raw)
		}

		// prompt=login needs a fresh authentication.
		e.Clock.Advance(10 * time.Minute)
		if consent(fresh, "", "openid") != true {
			t.Error("without prompt=login an older session is fine")
		}
		req = authReq(fresh, "openid")
		req["prompt"] = "login"
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, f.session), 401, "login_required")
	})
}

func TestOrganizationPolicyAndBackendFace(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		apptest.Want(t, e.Backend("PUT", "/v1/b2b/organizations/"+f.org, map[string]any{"third_party_connected_apps_allowed_type": "NOT_ALLOWED"}), 200, "")
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", authReq(id, "openid"), f.session), 403, "unauthorized_action")
		apptest.Want(t, e.Backend("PUT", "/v1/b2b/organizations/"+f.org, map[string]any{"third_party_connected_apps_allowed_type": "RESTRICTED",
			"allowed_third_party_connected_apps": []string{id}}), 200, "")

		// Backend face: the customer's server names the member.
		req := authReq(id, "openid", "email")
		req["organization_id"], req["member_id"] = f.org, f.member
		r := e.Backend("POST", "/v1/b2b/idp/oauth/authorize/start", req)
		apptest.Want(t, r, 200, "")
		if r.Body["member_id"] != f.member || r.Body["consent_required"] != true || r.Body["organization"].(map[string]any)["organization_id"] != f.org {
			t.Fatalf("backend start: %s", r.Raw)
		}
		req["consent_granted"] = true
		r = e.Backend("POST", "/v1/b2b/idp/oauth/authorize", req)
		apptest.Want(t, r, 200, "")
		code, _ := r.Body["authorization_code"].(string)
		apptest.Want(t, f.exchange(id, secret, code, verifier), 200, "")
		// ... or their session.
		req = authReq(id, "openid")
		req["session_token"] = f.session
		apptest.Want(t, e.Backend("POST", "/v1/b2b/idp/oauth/authorize/start", req), 200, "")
		delete(req, "session_token")
		apptest.Want(t, e.Backend("POST", "/v1/b2b/idp/oauth/authorize/start", req), 400, "invalid_request")

		// The member's connected apps list the grant; revoking it ends the tokens.
		_, back := f.authorize(authReq(id, "openid", "offline_access"), true)
		tok := f.exchange(id, secret, back.Get("code"), verifier)
		apptest.Want(t, tok, 200, "")
		apptest.Want(t, e.SDK("POST", "/b2b/organizations/members/connected_apps/"+id+"/revoke", nil, f.session), 200, "")
		if in := f.form("/oauth2/introspect", id, secret, url.Values{"token": {tok.Body["access_token"].(string)}}); in.Body["active"] != false {
			t.Fatalf("revoked app's token: %s", in.Raw)
		}
		oauthErr(t, f.form("/oauth2/token", id, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.Body["refresh_token"].(string)}}), 400, "invalid_grant")
	})
}

func TestLogoutAndSetup(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		pid := e.Project.Project.ID
		r := e.Get("/v1/public/" + pid + "/.well-known/openid-configuration")
		if r.Status != 400 || r.Body["error"] != "invalid_request" {
			t.Fatalf("discovery before setup: %s", r.Raw)
		}
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		_, back := f.authorize(authReq(id, "openid"), true)
		tok := f.exchange(id, secret, back.Get("code"), verifier)
		idToken := tok.Body["id_token"].(string)

		lo := map[string]any{"client_id": id, "post_logout_redirect_uri": "https://rp.test/bye", "state": "s"}
		r = e.SDK("POST", "/b2b/oauth/logout/start", lo, f.session)
		apptest.Want(t, r, 200, "")
		if r.Data()["redirect_uri"] != "https://rp.test/bye?state=s" || r.Data()["consent_required"] != true {
			t.Fatalf("logout: %s", r.Raw)
		}
		lo["id_token_hint"] = idToken
		if r = e.SDK("POST", "/b2b/oauth/logout/start", lo, f.session); r.Data()["consent_required"] != false {
			t.Fatalf("logout with the member's own hint: %s", r.Raw)
		}
		lo["id_token_hint"] = tok.Body["access_token"]
		apptest.Want(t, e.SDK("POST", "/b2b/oauth/logout/start", lo, f.session), 400, "invalid_request")
		delete(lo, "id_token_hint")
		lo["post_logout_redirect_uri"] = "https://rp.test/bye/"
		apptest.Want(t, e.SDK("POST", "/b2b/oauth/logout/start", lo, f.session), 400, "invalid_redirect_uri")

		// end_session sends the browser to the operator's page with the RP's parameters.
		r = e.Get("/v1/public/" + pid + "/oauth2/end_session?client_id=" + id + "&post_logout_redirect_uri=" + url.QueryEscape("https://rp.test/bye") + "&state=s")
		if r.Status != 302 {
			t.Fatalf("end_session: %d %s", r.Status, r.Raw)
		}
		loc, _ := url.Parse(r.Header.Get("Location"))
		if loc.Scheme+"://"+loc.Host+loc.Path != page || loc.Query().Get("post_logout_redirect_uri") != "https://rp.test/bye" || loc.Query().Get("client_id") != id {
			t.Fatalf("end_session location %s", loc)
		}
		// The Location may carry an id_token_hint: no cache keeps it.
		if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
			t.Fatalf("end_session Cache-Control %q, want no-store", cc)
		}
	})
}
