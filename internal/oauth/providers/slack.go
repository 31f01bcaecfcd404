package providers

import (
	"context"
	"fmt"
	"net/http"

	"golang.org/x/oauth2"

	"github.com/latchkey/latchkey/internal/providertokens"
)

// Slack's "Sign in with Slack" endpoints (OpenID Connect flavoured; the
// identity is read from userInfo with the access token).
const (
	SlackAuthorizeURL = "https://slack.com/openid/connect/authorize"
	SlackTokenURL     = "https://slack.com/api/openid.connect.token"
	SlackAPIURL       = "https://slack.com/api"
)

type slack struct {
	http *http.Client
	cfg  *oauth2.Config
	api  string
}

func newSlack(client *http.Client, c Config) *slack {
	cfg := oauth2Config(c, orDefault(c.AuthorizeURL, SlackAuthorizeURL), orDefault(c.TokenURL, SlackTokenURL),
		[]string{"openid", "email", "profile"}, oauth2.AuthStyleInParams)
	return &slack{http: client, cfg: cfg, api: orDefault(c.APIURL, SlackAPIURL)}
}

// Refresh implements Provider at the token endpoint.
func (s *slack) Refresh(ctx context.Context, refreshToken string) (Tokens, error) {
	return refresh(ctx, s.http, s.cfg, refreshToken)
}

func (s *slack) AuthCodeURL(r AuthRequest) string {
	r.Nonce = "" // not OpenID Connect: a nonce would be refused or ignored
	c := *s.cfg
	c.Scopes = mergeScopes(s.cfg.Scopes, r.Scopes)
	r.Verifier = "" // Slack does not take PKCE from confidential clients
	return c.AuthCodeURL(r.State, authOptions(r, false)...)
}

// Exchange reads openid.connect.userInfo: the user, their email (Slack
// verifies workspace emails) and their team, the Slack tenant.
func (s *slack) Exchange(ctx context.Context, code string, r AuthRequest) (*Identity, error) {
	c := *s.cfg
	c.Scopes = mergeScopes(s.cfg.Scopes, r.Scopes)
	tok, err := exchange(ctx, s.http, &c, code, r, false)
	if err != nil {
		return nil, err
	}
	var info struct {
		OK            bool   `json:"ok"`
		Error         string `json:"error"`
		Subject       string `json:"sub"`
		UserID        string `json:"https://slack.com/user_id"`
		TeamID        string `json:"https://slack.com/team_id"`
		TeamName      string `json:"https://slack.com/team_name"`
		Email         string `json:"email"`
		EmailVerified bool   `json:"email_verified"`
		Name          string `json:"name"`
		Picture       string `json:"picture"`
		Locale        string `json:"locale"`
	}
	if err := getJSON(ctx, s.http, "slack userInfo", s.api+"/openid.connect.userInfo", tok.AccessToken, nil, &info); err != nil {
		return nil, err
	}
	if !info.OK || info.Subject == "" {
		return nil, fmt.Errorf("%w: slack userInfo: %s", ErrProvider, info.Error)
	}
	id := &Identity{Provider: Slack, Subject: info.Subject, Email: info.Email, EmailVerified: info.EmailVerified,
		Name: info.Name, Picture: info.Picture, Locale: info.Locale, Tenants: []Tenant{}, Tokens: providertokens.FromOAuth2(tok, c.Scopes)}
	if info.TeamID != "" {
		id.Tenants = append(id.Tenants, Tenant{ID: info.TeamID, Name: info.TeamName})
	}
	return id, nil
}
