package providers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/latchkey/latchkey/internal/oauth/providers"
)

// githubAPI is GitHub's token endpoint and user API on loopback, with
// lists paged as GitHub pages them: per_page items (30 unless asked, 100
// at most) of page, and a Link header naming the next and last pages. The
// person has orgs organizations (ids 1..orgs) and emails addresses, the
// primary one, verified, last. next, when set, replaces the next link of
// the organizations; requests counts the list requests by path.
type githubAPI struct {
	srv      *httptest.Server
	orgs     int
	emails   int
	next     string
	mu       sync.Mutex
	requests map[string]int
}

func newGitHubAPI(t *testing.T, orgs, emails int) *githubAPI {
	t.Helper()
	g := &githubAPI{orgs: orgs, emails: emails, requests: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /login/oauth/access_token", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "gho_1", "token_type": "bearer", "scope": "read:user,user:email,read:org"})
	})
	mux.HandleFunc("GET /user", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"id": 4242, "login": "octo"})
	})
	mux.HandleFunc("GET /user/orgs", func(w http.ResponseWriter, r *http.Request) {
		g.page(w, r, g.orgs, func(i int) any { return map[string]any{"id": i, "login": "org-" + strconv.Itoa(i)} })
	})
	mux.HandleFunc("GET /user/emails", func(w http.ResponseWriter, r *http.Request) {
		g.page(w, r, g.emails, func(i int) any {
			return map[string]any{"email": fmt.Sprintf("octo%d@hub.test", i), "primary": i == g.emails, "verified": i == g.emails}
		})
	})
	g.srv = httptest.NewServer(mux)
	t.Cleanup(g.srv.Close)
	return g
}

func (g *githubAPI) page(w http.ResponseWriter, r *http.Request, total int, item func(int) any) {
	if r.Header.Get("Authorization") != "Bearer gho_1" {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	g.mu.Lock()
	g.requests[r.URL.Path]++
	g.mu.Unlock()
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, 100)
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	items := []any{}
	for i := (page-1)*per + 1; i <= min(page*per, total); i++ {
		items = append(items, item(i))
	}
	last := max((total+per-1)/per, 1)
	link := func(p int) string {
		return fmt.Sprintf("<%s%s?per_page=%d&page=%d>", g.srv.URL, r.URL.Path, per, p)
	}
	switch {
	case g.next != "" && r.URL.Path == "/user/orgs":
		w.Header().Set("Link", "<"+g.next+">; rel=\"next\"")
	case page < last:
		w.Header().Set("Link", link(page+1)+`; rel="next", `+link(last)+`; rel="last"`)
	}
	_ = json.NewEncoder(w).Encode(items)
}

func (g *githubAPI) count(path string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.requests[path]
}

func (g *githubAPI) login(t *testing.T) (*providers.Identity, error) {
	t.Helper()
	p, err := providers.NewFactory(nil).New(context.Background(), providers.GitHub, providers.Config{ClientID: "cid",
		ClientSecret: "csecret", AuthorizeURL: g.srv.URL + "/login/oauth/authorize", TokenURL: g.srv.URL + "/login/oauth/access_token",
		APIURL: g.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return p.Exchange(context.Background(), "code-1", providers.AuthRequest{RedirectURI: "http://127.0.0.1/cb"})
}

// A person's organizations and addresses are read whole, page after page
// (100 a page, by the next links): the organizations are the tenants an
// organization admits by, and the primary address may be on any page.
func TestGitHubListsAreReadPastTheFirstPage(t *testing.T) {
	g := newGitHubAPI(t, 230, 120)
	id, err := g.login(t)
	if err != nil {
		t.Fatal(err)
	}
	if len(id.Tenants) != 230 || id.Tenants[229].ID != "230" {
		t.Fatalf("%d tenants, the last %v", len(id.Tenants), id.Tenants[len(id.Tenants)-1])
	}
	if id.Email != "octo120@hub.test" || !id.EmailVerified {
		t.Fatalf("primary address %q verified %v", id.Email, id.EmailVerified)
	}
	if n, m := g.count("/user/orgs"), g.count("/user/emails"); n != 3 || m != 2 {
		t.Fatalf("%d organization pages and %d address pages read, want 3 and 2", n, m)
	}
}

// A list without end is read up to ten pages; a next link to another
// host than GitHub's API is not followed, so the token goes nowhere else.
func TestGitHubPagingIsBounded(t *testing.T) {
	g := newGitHubAPI(t, 5, 1)
	g.next = g.srv.URL + "/user/orgs?per_page=100&page=2"
	if _, err := g.login(t); err != nil {
		t.Fatal(err)
	}
	if n := g.count("/user/orgs"); n != 10 {
		t.Fatalf("%d pages of an endless list read, want 10", n)
	}

	elsewhere := newGitHubAPI(t, 5, 1)
	g = newGitHubAPI(t, 5, 1)
	g.next = elsewhere.srv.URL + "/user/orgs?per_page=100&page=2"
	if _, err := g.login(t); err != nil {
		t.Fatal(err)
	}
	if n := elsewhere.count("/user/orgs") + elsewhere.count("/user/emails"); n != 0 || g.count("/user/orgs") != 1 {
		t.Fatalf("followed a next link to another host: %d requests there", n)
	}
}
