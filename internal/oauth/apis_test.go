package oauth_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/oauth/providers"
)

// fakeAPI speaks one provider's authorize, token and user APIs on
// loopback, as GitHub, Slack and HubSpot document them. It is the
// provider, not our code: it checks client credentials, redirect URI and
// the code as the real ones do.
type fakeAPI struct {
	srv   *httptest.Server
	mu    sync.Mutex
	codes map[string]bool
	// user answers the provider's identity endpoints for the access token.
	routes map[string]any
	// answers are the token endpoint's next answers, in order (queueTokens);
	// once they run out it answers at-1 and rt-1. issued are the access
	// tokens it has handed out, which its identity endpoints accept.
	answers []map[string]any
	issued  map[string]bool
	// refreshable are the refresh tokens the token endpoint takes in a
	// refresh_token grant (each one it issued, until a refresh rotates it
	// out); refreshAnswers are its next refresh answers (queueRefresh),
	// after which it answers at-r<n> for two hours; refreshes counts the
	// grants it took, and refreshDelay holds each answer back.
	refreshable    map[string]bool
	refreshAnswers []map[string]any
	refreshes      int
	refreshDelay   time.Duration
}

// queueRefresh sets the token endpoint's next refresh answers: each is an
// access token and, unless "", a new refresh token (a rotation).
func (f *fakeAPI) queueRefresh(pairs ...[2]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range pairs {
		a := map[string]any{"access_token": p[0], "token_type": "bearer", "expires_in": 7200}
		if p[1] != "" {
			a["refresh_token"] = p[1]
		}
		f.refreshAnswers = append(f.refreshAnswers, a)
	}
}

// refreshCount is how many refresh grants the token endpoint took.
func (f *fakeAPI) refreshCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refreshes
}

// refreshGrant answers a refresh_token grant as RFC 6749 section 6 says:
// a new access token for a refresh token it issued to this client, and
// invalid_grant otherwise.
func (f *fakeAPI) refreshGrant(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	old := r.Form.Get("refresh_token")
	ok := f.refreshable[old] && r.Form.Get("client_id") == "cid" && r.Form.Get("client_secret") == "csecret"
	var answer map[string]any
	if ok {
		f.refreshes++
		answer = map[string]any{"access_token": "at-r" + strconv.Itoa(f.refreshes), "token_type": "bearer", "expires_in": 7200}
		if len(f.refreshAnswers) > 0 {
			answer, f.refreshAnswers = f.refreshAnswers[0], f.refreshAnswers[1:]
		}
		f.issued[answer["access_token"].(string)] = true
		if rt, _ := answer["refresh_token"].(string); rt != "" {
			delete(f.refreshable, old)
			f.refreshable[rt] = true
		}
	}
	delay := f.refreshDelay
	f.mu.Unlock()
	time.Sleep(delay)
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant"})
		return
	}
	_ = json.NewEncoder(w).Encode(answer)
}

// queueTokens sets the token endpoint's next answers: each is an access
// token and, unless "", a refresh token.
func (f *fakeAPI) queueTokens(pairs ...[2]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range pairs {
		a := map[string]any{"access_token": p[0], "token_type": "bearer", "scope": "read:user,user:email", "expires_in": 3600}
		if p[1] != "" {
			a["refresh_token"] = p[1]
		}
		f.answers = append(f.answers, a)
	}
}

func newFakeAPI(t *testing.T, routes map[string]any) *fakeAPI {
	f := &fakeAPI{codes: map[string]bool{}, routes: routes, issued: map[string]bool{}, refreshable: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != "cid" || q.Get("response_type") != "code" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.codes["code-1"] = true
		f.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {"code-1"}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		if r.Form.Get("grant_type") == "refresh_token" {
			f.refreshGrant(w, r)
			return
		}
		f.mu.Lock()
		ok := f.codes[r.Form.Get("code")] && r.Form.Get("client_id") == "cid" && r.Form.Get("client_secret") == "csecret"
		delete(f.codes, r.Form.Get("code"))
		answer := map[string]any{"access_token": "at-1", "token_type": "bearer", "scope": "read:user,user:email",
			"refresh_token": "rt-1", "expires_in": 3600}
		if ok && len(f.answers) > 0 {
			answer, f.answers = f.answers[0], f.answers[1:]
		}
		if ok {
			f.issued[answer["access_token"].(string)] = true
			if rt, _ := answer["refresh_token"].(string); rt != "" {
				f.refreshable[rt] = true
			}
		}
		f.mu.Unlock()
		if !ok {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "bad_verification_code"})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(answer)
	})
	for path, body := range routes {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			f.mu.Lock()
			known := f.issued[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
			f.mu.Unlock()
			if !known {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(body)
		})
	}
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) config() providers.Config {
	return providers.Config{ClientID: "cid", ClientSecret: "csecret", AuthorizeURL: f.srv.URL + "/authorize",
		TokenURL: f.srv.URL + "/token", APIURL: f.srv.URL}
}

func TestGitHubLoginAndTenants(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := newFakeAPI(t, map[string]any{
			"/user":        map[string]any{"id": 4242, "login": "octo", "name": "Octo Cat", "avatar_url": "https://img.test/o.png"},
			"/user/emails": []any{map[string]any{"email": "octo@hub.test", "primary": true, "verified": true}},
			"/user/orgs":   []any{map[string]any{"id": 77, "login": "hub-org"}},
		})
		configure(t, e, providers.GitHub, f.config())
		org := e.CreateOrg("hub", "NOT_ALLOWED", map[string]any{"oauth_tenant_jit_provisioning": "RESTRICTED",
			"allowed_oauth_tenants": map[string]any{"github": []string{"77"}}})
		u := browse(t, e, startPath(e, "github", url.Values{"organization_id": {org}}))
		// The backend face answers the Node client's type, provider fields included.
		r := e.Backend(http.MethodPost, "/v1/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")})
		apptest.Want(t, r, 200, "")
		d := r.Body
		if d["provider_subject"] != "4242" || d["provider_type"] != "github" || str(d, "member", "email_address") != "octo@hub.test" || str(d, "member", "name") != "Octo Cat" {
			t.Fatalf("answer: %s", r.Raw)
		}
		f0 := d["member_session"].(map[string]any)["authentication_factors"].([]any)[0].(map[string]any)
		if ids, _ := f0["github_oauth_factor"].(map[string]any)["provider_tenant_ids"].([]any); len(ids) != 1 || ids[0] != "77" {
			t.Fatalf("factor: %v", f0)
		}
		r = e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/members/"+d["member_id"].(string)+"/oauth_providers/github?include_refresh_token=true", nil)
		apptest.Want(t, r, 200, "")
		regs := r.Body["registrations"].([]any)
		if len(regs) != 1 || str(regs[0].(map[string]any), "access_token") != "at-1" || str(regs[0].(map[string]any), "refresh_token") != "rt-1" {
			t.Fatalf("provider info: %s", r.Raw)
		}
	})
}

func TestSlackAndHubSpotIdentities(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		slack := newFakeAPI(t, map[string]any{"/openid.connect.userInfo": map[string]any{"ok": true, "sub": "U1",
			"email": "sam@slack.test", "email_verified": true, "name": "Sam", "https://slack.com/team_id": "T9",
			"https://slack.com/team_name": "Team Nine"}})
		hub := newFakeAPI(t, map[string]any{"/oauth/v1/access-tokens/at-1": map[string]any{"user": "hana@hub.test",
			"user_id": 5, "hub_id": 99, "hub_domain": "hub.test", "scopes": []string{"oauth"}}})
		configure(t, e, providers.Slack, slack.config())
		configure(t, e, providers.HubSpot, hub.config())
		org := e.CreateOrg("mixed", "NOT_ALLOWED", map[string]any{"oauth_tenant_jit_provisioning": "RESTRICTED",
			"allowed_oauth_tenants": map[string]any{"slack": []string{"T9"}, "hubspot": []string{"99"}}})
		for provider, want := range map[string]string{"slack": "sam@slack.test", "hubspot": "hana@hub.test"} {
			u := browse(t, e, startPath(e, provider, url.Values{"organization_id": {org}}))
			r := e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")}, "")
			apptest.Want(t, r, 200, "")
			if str(r.Data(), "member", "email_address") != want {
				t.Fatalf("%s: %s", provider, r.Raw)
			}
		}
	})
}
