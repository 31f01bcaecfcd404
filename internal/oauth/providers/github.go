package providers

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

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

// Refresh implements Refresher at the token endpoint.
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
	var emails []struct {
		Email    string `json:"email"`
		Primary  bool   `json:"primary"`
		Verified bool   `json:"verified"`
	}
	if err := getJSON(ctx, g.http, "github emails", g.api+"/user/emails", tok.AccessToken, githubHeaders, &emails); err != nil {
		return nil, err
	}
	var orgs []struct {
		ID    int64  `json:"id"`
		Login string `json:"login"`
	}
	if err := getJSON(ctx, g.http, "github organizations", g.api+"/user/orgs", tok.AccessToken, githubHeaders, &orgs); err != nil {
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
