package idp_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// repeat is n copies of s, as a list.
func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// Authorization requests are bounded before their scopes and prompt are
// parsed: 100 scopes (duplicates counted) in 4 KiB, and 64 bytes of
// prompt. What is within answers as before; one value more is refused with
// the error the route gives a bad scope or prompt, to the widget at start
// and to the client at submit. Without a session, a prompt over its bound
// is no prompt=none: the widget is told to log the member in.
func TestAuthorizeScopeAndPromptBounds(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, _ := f.client("first_party", nil)
		start := func(req map[string]any, session string) apptest.Resp {
			return e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, session)
		}

		r := start(authReq(id, repeat("openid", 100)...), f.session)
		apptest.Want(t, r, 200, "")
		if res := r.Data()["scope_results"].([]any); len(res) != 1 {
			t.Fatalf("100 x openid: %s", r.Raw)
		}
		for name, req := range map[string]map[string]any{
			"101 scopes":  authReq(id, repeat("openid", 101)...),
			"4 KiB":       authReq(id, "openid", strings.Repeat("a", 2048), strings.Repeat("b", 2048)),
			"one of 101":  authReq(id, strings.Join(repeat("openid", 101), " ")),
			"list of 101": authReq(id, append(repeat("email", 100), "openid")...),
		} {
			r := start(req, f.session)
			apptest.Want(t, r, 400, "invalid_scope")
			if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, "at most 100 scopes") {
				t.Errorf("%s: %s", name, r.Raw)
			}
			req["consent_granted"] = true
			r = e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, f.session)
			if q := redirectQuery(t, r, r.Data()); q.Get("error") != "invalid_scope" || q.Get("code") != "" || q.Get("state") != "st-1" {
				t.Errorf("%s: submit %s", name, r.Raw)
			}
		}

		apptest.Want(t, start(with(authReq(id, "openid"), "prompt", "login consent"), f.session), 200, "")
		long := strings.Join(repeat("consent", 9), " ") // valid values, 71 bytes
		apptest.Want(t, start(with(authReq(id, "openid"), "prompt", long), f.session), 400, "invalid_request")

		// No session: prompt=none within the bound is login_required; over
		// it, the prompt is not read as prompt=none.
		apptest.Want(t, start(with(authReq(id, "openid"), "prompt", "none"), ""), 401, "login_required")
		none := strings.Join(repeat("none", 20), " ")
		apptest.Want(t, start(with(authReq(id, "openid"), "prompt", none), ""), 401, "user_unauthenticated")
	})
}

// A refresh's scope parameter is bounded and read before the transaction
// that spends the token: over the bound it is invalid_scope and the token
// stays unspent, so the same token refreshes with a parameter within it.
// The client_credentials grant's scope parameter has the same bound.
func TestTokenScopeParameterBounds(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("first_party", nil)
		rt := f.grant(id, secret, "openid", "offline_access").Body["refresh_token"].(string)
		oauthErr(t, f.refresh(id, secret, rt, strings.Join(repeat("openid", 101), " ")), 400, "invalid_scope")
		oauthErr(t, f.refresh(id, secret, rt, strings.Repeat("o", 4097)), 400, "invalid_scope")
		r := f.refresh(id, secret, rt, strings.Join(repeat("openid", 100), " "))
		apptest.Want(t, r, 200, "")
		if r.Body["scope"] != "openid" {
			t.Fatalf("narrowed refresh: %s", r.Raw)
		}

		c := e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Job", "scopes": []string{"read:x"}})
		apptest.Want(t, c, 200, "")
		m := c.Body["m2m_client"].(map[string]any)
		token := func(scope string) apptest.Resp {
			h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
			return e.Do("POST", "/v1/public/"+e.Project.Project.ID+"/oauth2/token",
				url.Values{"grant_type": {"client_credentials"}, "scope": {scope}}.Encode(), h,
				m["client_id"].(string), m["client_secret"].(string))
		}
		apptest.Want(t, token(strings.Join(repeat("read:x", 100), " ")), 200, "")
		oauthErr(t, token(strings.Join(repeat("read:x", 101), " ")), 400, "invalid_scope")
	})
}
