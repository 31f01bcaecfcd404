package idp_test

import (
	"net/http"
	"net/url"
	"reflect"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An id_token_hint must be an ID token this provider signed for the client
// (OIDC RP-Initiated Logout 2): one re-signed with another key, one issued
// to another client, and an access token whose custom audience is the
// client (right audience, wrong issuer) are all invalid_request.
func TestLogoutHintMustBeOurIDTokenForTheClient(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		other, otherSecret := f.client("third_party", nil)
		ownAud, ownAudSecret := f.client("third_party", nil)
		apptest.Want(t, e.Backend("PUT", "/v1/connected_apps/clients/"+ownAud, map[string]any{"access_token_custom_audience": ownAud}), 200, "")
		idt := f.grant(id, secret, "openid").Body["id_token"].(string)
		logout := func(client, hint string) apptest.Resp {
			return e.SDK("POST", "/b2b/oauth/logout/start", map[string]any{"client_id": client,
				"post_logout_redirect_uri": "https://rp.test/bye", "id_token_hint": hint}, f.session)
		}
		apptest.Want(t, logout(id, idt), 200, "")
		apptest.Want(t, logout(id, forge(t, idt)), 400, "invalid_request")
		apptest.Want(t, logout(id, f.grant(other, otherSecret, "openid").Body["id_token"].(string)), 400, "invalid_request")
		apptest.Want(t, logout(ownAud, f.grant(ownAud, ownAudSecret, "openid").Body["access_token"].(string)), 400, "invalid_request")
	})
}

// end_session answers POST with a form body like GET (RP-Initiated Logout
// 2: OPs MUST support both), and needs no parameter at all: the redirect
// to the operator's page carries end_session=1 so the widget runs its
// Logout flow even without a post_logout_redirect_uri.
func TestEndSessionByGETAndPOST(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, _ := f.client("third_party", nil)
		path := "/v1/public/" + e.Project.Project.ID + "/oauth2/end_session"
		params := url.Values{"client_id": {id}, "post_logout_redirect_uri": {"https://rp.test/bye"}, "state": {"s"}}
		want := url.Values{"end_session": {"1"}, "client_id": {id}, "post_logout_redirect_uri": {"https://rp.test/bye"}, "state": {"s"}}
		form := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
		for _, c := range []struct {
			name   string
			r      apptest.Resp
			status int
			want   url.Values
		}{
			{"GET", e.Get(path + "?" + params.Encode()), http.StatusFound, want},
			{"POST", e.Do("POST", path, params.Encode(), form, "", ""), http.StatusSeeOther, want},
			{"GET without parameters", e.Get(path), http.StatusFound, url.Values{"end_session": {"1"}}},
			{"POST without parameters", e.Do("POST", path, "", form, "", ""), http.StatusSeeOther, url.Values{"end_session": {"1"}}},
		} {
			if c.r.Status != c.status {
				t.Fatalf("%s: %d %s", c.name, c.r.Status, c.r.Raw)
			}
			loc, err := url.Parse(c.r.Header.Get("Location"))
			if err != nil || loc.Scheme+"://"+loc.Host+loc.Path != page || !reflect.DeepEqual(loc.Query(), c.want) {
				t.Fatalf("%s: location %s", c.name, c.r.Header.Get("Location"))
			}
		}
		oauthErr(t, e.Do("POST", path, "state=a&state=b", form, "", ""), 400, "invalid_request")
	})
}

// client_id is optional when an id_token_hint names the client (its aud);
// both present must agree, and a post_logout_redirect_uri needs a client
// to be checked against.
func TestLogoutClientFromTheHint(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		other, _ := f.client("third_party", nil)
		idt := f.grant(id, secret, "openid").Body["id_token"].(string)
		logout := func(body map[string]any) apptest.Resp {
			return e.SDK("POST", "/b2b/oauth/logout/start", body, f.session)
		}
		r := logout(map[string]any{"id_token_hint": idt, "post_logout_redirect_uri": "https://rp.test/bye", "state": "s"})
		apptest.Want(t, r, 200, "")
		if r.Data()["redirect_uri"] != "https://rp.test/bye?state=s" || r.Data()["consent_required"] != false {
			t.Fatalf("logout by hint alone: %s", r.Raw)
		}
		apptest.Want(t, logout(map[string]any{"client_id": other, "id_token_hint": idt, "post_logout_redirect_uri": "https://rp.test/bye"}), 400, "invalid_request")
		apptest.Want(t, logout(map[string]any{"post_logout_redirect_uri": "https://rp.test/bye"}), 400, "invalid_request")
		apptest.Want(t, logout(map[string]any{"id_token_hint": idt, "post_logout_redirect_uri": "https://rp.test/bye/"}), 400, "invalid_redirect_uri")
	})
}

// Without a post_logout_redirect_uri the logout still happens, with the
// same confirmation rule, and there is nowhere to return: redirect_uri is
// empty and the widget ends on its logged-out state.
func TestLogoutWithoutPostLogoutRedirect(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		idt := f.grant(id, secret, "openid").Body["id_token"].(string)
		for _, c := range []struct {
			name    string
			body    map[string]any
			session string
			confirm bool
		}{
			{"no parameters", map[string]any{}, f.session, true},
			{"client only", map[string]any{"client_id": id, "state": "s"}, f.session, true},
			{"the member's hint", map[string]any{"id_token_hint": idt}, f.session, false},
			{"no session", map[string]any{"client_id": id}, "", false},
		} {
			r := e.SDK("POST", "/b2b/oauth/logout/start", c.body, c.session)
			apptest.Want(t, r, 200, "")
			if r.Data()["redirect_uri"] != "" || r.Data()["consent_required"] != c.confirm {
				t.Fatalf("%s: %s", c.name, r.Raw)
			}
		}
		apptest.Want(t, e.SDK("POST", "/b2b/oauth/logout/start", map[string]any{"client_id": "connected-app-test-unknown"}, f.session), 404, "connected_app_not_found")
	})
}
