package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/idp"
)

// connectedApp is a first-party connected app whose tokens a test asks
// about through the provider's own endpoints.
type connectedApp struct {
	e          *apptest.Env
	id, secret string
}

const (
	appRedirect = "https://rp.test/cb"
	appVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-verifier"
)

// newConnectedApp sets the project's authorization page and registers a
// first-party connected app.
func newConnectedApp(t *testing.T, e *apptest.Env) *connectedApp {
	t.Helper()
	if err := idp.SetAuthorizationURL(context.Background(), e.App.DB, e.Clock, e.Project.Project.ID,
		"https://app.customer.test/authorize"); err != nil {
		t.Fatal(err)
	}
	r := e.Backend(http.MethodPost, "/v1/connected_apps/clients", map[string]any{"client_type": "first_party",
		"client_name": "RP", "redirect_urls": []string{appRedirect}})
	apptest.Want(t, r, 200, "")
	a := r.Body["connected_app"].(map[string]any)
	return &connectedApp{e: e, id: a["client_id"].(string), secret: a["client_secret"].(string)}
}

// grant has the holder of session consent to the app (openid,
// offline_access) and exchanges the code: the token answer.
func (a *connectedApp) grant(t *testing.T, session string) apptest.Resp {
	t.Helper()
	req := map[string]any{"client_id": a.id, "redirect_uri": appRedirect, "response_type": "code",
		"scopes": []string{"openid", "offline_access"}, "state": "st-1", "nonce": "n-1",
		"code_challenge": flowtoken.S256(appVerifier)}
	apptest.Want(t, a.e.SDK(http.MethodPost, "/idp/b2b/oauth/authorize/start", req, session), 200, "")
	req["consent_granted"] = true
	r := a.e.SDK(http.MethodPost, "/idp/b2b/oauth/authorize/submit", req, session)
	apptest.Want(t, r, 200, "")
	u, err := url.Parse(str(r.Data(), "redirect_uri"))
	if err != nil {
		t.Fatal(err)
	}
	r = a.form("/oauth2/token", url.Values{"grant_type": {"authorization_code"}, "code": {u.Query().Get("code")},
		"redirect_uri": {appRedirect}, "code_verifier": {appVerifier}})
	apptest.Want(t, r, 200, "")
	return r
}

// form posts to a provider endpoint as the app.
func (a *connectedApp) form(path string, v url.Values) apptest.Resp {
	return a.e.Do(http.MethodPost, "/v1/public/"+a.e.Project.Project.ID+path, v.Encode(),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, url.QueryEscape(a.id), url.QueryEscape(a.secret))
}

// active introspects token as the app.
func (a *connectedApp) active(t *testing.T, token string) bool {
	t.Helper()
	r := a.form("/oauth2/introspect", url.Values{"token": {token}})
	apptest.Want(t, r, 200, "")
	return r.Body["active"] == true
}

// The squatter of the pre-account takeover may have granted a connected
// app access as the member, with the session his GitHub login gave him.
// When the CFO proves the address, those tokens end with his sessions, in
// the same transaction: the access token no longer introspects as active
// and the refresh token mints nothing.
func TestOwnersProofEndsTheSquattersConnectedAppTokens(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		app := newConnectedApp(t, e)
		org, r := squatterLogin(t, e)
		memberID := r.Data()["member_id"].(string)
		tokens := app.grant(t, str(r.Data(), "session_token"))
		access, refresh := tokens.Body["access_token"].(string), tokens.Body["refresh_token"].(string)
		if !app.active(t, access) || !app.active(t, refresh) {
			t.Fatalf("the squatter's tokens are not active before the proof: %s", tokens.Raw)
		}

		owner, _ := e.LoginByEmailOTP(org, "cfo@acme.test")
		r = sessionCheck(e, owner)
		apptest.Want(t, r, 200, "")
		// The backend session check names the member in member (its Node
		// type has no top-level member_id).
		if r.Body["member"].(map[string]any)["member_id"] != memberID {
			t.Fatalf("the CFO's login: %s", r.Raw)
		}
		if app.active(t, access) || app.active(t, refresh) {
			t.Error("the squatter's connected-app tokens are active after the CFO's proof")
		}
		r = app.form("/oauth2/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}})
		if r.Status != http.StatusBadRequest || r.Body["error"] != "invalid_grant" {
			t.Errorf("refresh after the proof: %d %v, want 400 invalid_grant", r.Status, r.Body["error"])
		}
	})
}
