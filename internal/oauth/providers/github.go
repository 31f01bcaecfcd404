package providers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/oauth2"

	"github.com/latchkey/latchkey/internal/providertokens"
)

// GitHub's endpoints.
const (
	GitHubAuthorizeURL = "https://github.com/login/oauth/authorize"
	GitHubTokenURL     = "https://github.com/login/oauth/access_token"
	GitHubAPIURL       = "https://api.github.com"
)

type github struct {
	http *http.Client
	cfg  *oauth2.Config
	api  string
}

func newGitHub(client *http.Client, c Config) *github {
	cfg := oauth2Config(c, orDefault(c.AuthorizeURL, GitHubAuthorizeURL), orDefault(c.TokenURL, GitHubTokenURL),
		[]string{"read:user", "user:email", "read:org"}, oauth2.AuthStyleInParams)
	return &github{http: client, cfg: cfg, api: orDefault(c.APIURL, GitHubAPIURL)}
}

// Refresh implements Provider at the token endpoint.
func (g *github) Refresh(ctx context.Context, refreshToken string) (Tokens, error) {
	return refresh(ctx, g.http, g.cfg, refreshToken)
}

func (g *github) AuthCodeURL(r AuthRequest) string {
	r.Nonce = "" // not OpenID Connect: a nonce would be refused or ignored
	c := *g.cfg
	c.Scopes = mergeScopes(g.cfg.Scopes, r.Scopes)
	return c.AuthCodeURL(r.State, authOptions(r, true)...)
}

var githubHeaders = map[string]string{"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}

// Exchange reads the user, their primary email (verified only if GitHub
// says so) and their organizations, which are the GitHub tenants.
func (g *github) Exchange(ctx context.Context, code string, r AuthRequest) (*Identity, error) {
	c := *g.cfg
	c.Scopes = mergeScopes(g.cfg.Scopes, r.Scopes)
	tok, err := exchange(ctx, g.http, &c, code, r, true)
	if err != nil {
		return nil, err
	}
	var user struct {
		ID        int64  `json:"id"`
		Login     string `json:"login"`
		Name      string `json:"name"`
		AvatarURL string `json:"avatar_url"`
	}
	if err := getJSON(ctx, g.http, "github user", g.api+"/user", tok.AccessToken, githubHeaders, &user); err != nil {
		return nil, err
	}
	if user.ID == 0 {
		return nil, fmt.Errorf("%w: github user without id", ErrProvider)
	}
	emails, err := githubList[struct {
		Email    string `json:"email"`
		Primary  bool   `json:"primary"`
		Verified bool   `json:"verified"`
	}](ctx, g, "github emails", "/user/emails", tok.AccessToken)
	if err != nil {
		return nil, err
	}
	orgs, err := githubList[struct {
		ID    int64  `json:"id"`
		Login string `json:"login"`
	}](ctx, g, "github organizations", "/user/orgs", tok.AccessToken)
	if err != nil {
		return nil, err
	}
	name := user.Name
	if name == "" {
		name = user.Login
	}
	id := &Identity{Provider: GitHub, Subject: strconv.FormatInt(user.ID, 10), Name: name, Picture: user.AvatarURL,
		Tenants: []Tenant{}, Tokens: providertokens.FromOAuth2(tok, c.Scopes)}
	for _, e := range emails {
		if e.Primary {
			id.Email, id.EmailVerified = e.Email, e.Verified
		}
	}
	for _, o := range orgs {
		id.Tenants = append(id.Tenants, Tenant{ID: strconv.FormatInt(o.ID, 10), Name: o.Login})
	}
	return id, nil
}

// GitHub lists come in pages (30 items unless per_page says otherwise, 100
// at most), the next one named by the answer's Link header (rel="next").
// A person's organizations or addresses may fill more than one: the
// organizations are the tenants an organization admits by, and the
// primary address may be on any page. githubMaxPages bounds how many are
// read, so that a list without end costs a bounded number of calls.
const (
	githubPerPage  = 100
	githubMaxPages = 10
)

// githubList reads the GitHub list at path (under the API URL), following
// its next links on the API's own origin (the token goes only there), up
// to githubMaxPages pages.
func githubList[T any](ctx context.Context, g *github, what, path, token string) ([]T, error) {
	base, err := url.Parse(g.api)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: api url: %v", ErrProvider, what, withoutURL(err))
	}
	var all []T
	next := g.api + path + "?per_page=" + strconv.Itoa(githubPerPage)
	for page := 0; next != "" && page < githubMaxPages; page++ {
		var items []T
		h, err := fetchJSON(ctx, g.http, what, next, token, githubHeaders, &items)
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		next = nextLink(h, base)
	}
	return all, nil
}

// nextLink is the rel="next" target of an answer's Link header (RFC 8288),
// when it is on base's scheme and host; "" otherwise.
func nextLink(h http.Header, base *url.URL) string {
	for _, field := range h.Values("Link") {
		for _, link := range strings.Split(field, ",") {
			target, params, ok := strings.Cut(strings.TrimSpace(link), ";")
			target = strings.TrimSpace(target)
			if !ok || !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
				continue
			}
			next := false
			for p := range strings.SplitSeq(params, ";") {
				name, value, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(name, "rel") && slices.Contains(strings.Fields(strings.ToLower(strings.Trim(value, `"`))), "next") {
					next = true
				}
			}
			if !next {
				continue
			}
			u, err := url.Parse(target[1 : len(target)-1])
			if err != nil || u.Scheme != base.Scheme || u.Host != base.Host {
				return ""
			}
			return u.String()
		}
	}
	return ""
}
