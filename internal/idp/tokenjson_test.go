package idp_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The token endpoint takes the vendor's documented body, a flat JSON
// object of string parameters, for every grant it serves, as well as the
// form: client_credentials with the client's credentials in the body or
// in Basic, and the connected apps' authorization_code and refresh_token.
func TestTokenEndpointTakesJSON(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		tokenPath := "/v1/public/" + e.Project.Project.ID + "/oauth2/token"
		post := func(body string, user, pass string) apptest.Resp {
			return e.Do("POST", tokenPath, body, http.Header{"Content-Type": {"application/json; charset=utf-8"}}, user, pass)
		}
		r := e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Job", "scopes": []string{"read:x", "write:x"}})
		apptest.Want(t, r, 200, "")
		c := r.Body["m2m_client"].(map[string]any)
		id, secret := c["client_id"].(string), c["client_secret"].(string)

		ok := post(`{"client_id":"`+id+`","client_secret":"`+secret+`","grant_type":"client_credentials","scope":"read:x"}`, "", "")
		apptest.Want(t, ok, 200, "")
		if ok.Body["scope"] != "read:x" || ok.Body["token_type"] != "bearer" {
			t.Fatalf("client_credentials by JSON: %s", ok.Raw)
		}
		apptest.Want(t, post(`{"grant_type":"client_credentials"}`, id, secret), 200, "")
		// Credentials in the body: 400, no Basic challenge (RFC 6749 5.2).
		oauthErr(t, post(`{"client_id":"`+id+`","client_secret":"wrong","grant_type":"client_credentials"}`, "", ""), 400, "invalid_client")
		oauthErr(t, post(`{"grant_type":"client_credentials"}`, id, "wrong"), 401, "invalid_client")
		oauthErr(t, post(`{"client_id":"`+id+`","client_secret":"`+secret+`","grant_type":"client_credentials","scope":"admin"}`, "", ""),
			400, "invalid_scope")
		// One authentication method, as with the form.
		oauthErr(t, post(`{"grant_type":"client_credentials","client_secret":"`+secret+`"}`, id, secret), 400, "invalid_request")

		// The connected apps' grants, client_secret_post in the JSON body.
		app, appSecret := f.client("third_party", nil)
		_, back := f.authorize(authReq(app, "openid", "offline_access"), true)
		r = post(`{"grant_type":"authorization_code","client_id":"`+app+`","client_secret":"`+appSecret+
			`","code":"`+back.Get("code")+`","redirect_uri":"`+rpURL+`","code_verifier":"`+verifier+`"}`, "", "")
		apptest.Want(t, r, 200, "")
		rt, _ := r.Body["refresh_token"].(string)
		if rt == "" || r.Body["id_token"] == nil {
			t.Fatalf("authorization_code by JSON: %s", r.Raw)
		}
		r = post(`{"grant_type":"refresh_token","refresh_token":"`+rt+`","scope":"openid"}`, app, appSecret)
		apptest.Want(t, r, 200, "")
		if r.Body["scope"] != "openid" {
			t.Fatalf("refresh_token by JSON: %s", r.Raw)
		}
	})
}

// A JSON body is a flat object of string values: anything else is
// invalid_request, as a malformed form is, even when the body also holds
// the client's right credentials (which, sent alone, get a token).
func TestTokenEndpointRefusesOtherJSON(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		tokenPath := "/v1/public/" + e.Project.Project.ID + "/oauth2/token"
		r := e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Job", "scopes": []string{"read:x"}})
		apptest.Want(t, r, 200, "")
		c := r.Body["m2m_client"].(map[string]any)
		creds := `"client_id":"` + c["client_id"].(string) + `","client_secret":"` + c["client_secret"].(string) + `"`
		post := func(body string) apptest.Resp {
			return e.Do("POST", tokenPath, body, http.Header{"Content-Type": {"application/json"}}, "", "")
		}
		apptest.Want(t, post(`{"grant_type":"client_credentials",`+creds+`}`), 200, "")
		for name, body := range map[string]string{
			"no grant_type":    `{` + creds + `}`,
			"a list value":     `{"grant_type":"client_credentials",` + creds + `,"audience":["read:x"]}`,
			"a number value":   `{"grant_type":"client_credentials",` + creds + `,"max_age":7}`,
			"a boolean value":  `{"grant_type":"client_credentials",` + creds + `,"extra":true}`,
			"a null value":     `{"grant_type":"client_credentials",` + creds + `,"scope":null}`,
			"an object value":  `{"grant_type":"client_credentials",` + creds + `,"client":{"id":"x"}}`,
			"a repeated key":   `{"grant_type":"client_credentials",` + creds + `,"grant_type":"client_credentials"}`,
			"a list":           `[{"grant_type":"client_credentials",` + creds + `}]`,
			"a string":         `"grant_type=client_credentials"`,
			"malformed":        `{"grant_type":"client_credentials",` + creds,
			"trailing data":    `{"grant_type":"client_credentials",` + creds + `} {}`,
			"a NUL":            `{"grant_type":"client_credentials",` + creds + `,"state":"a\u0000b"}`,
			"a NUL in a key":   `{"grant_type":"client_credentials",` + creds + `,"st\u0000ate":"a"}`,
			"a lone surrogate": `{"grant_type":"client_credentials",` + creds + `,"state":"a\ud800b"}`,
			"a form":           `grant_type=client_credentials`,
		} {
			if r := post(body); r.Status != 400 || r.Body["error"] != "invalid_request" {
				t.Errorf("%s: %d %s", name, r.Status, r.Raw)
			}
		}
	})
}
