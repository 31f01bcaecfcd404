package providers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"golang.org/x/oauth2"

	"github.com/latchkey/latchkey/internal/providertokens"
)

// HubSpot's endpoints.
const (
	HubSpotAuthorizeURL = "https://app.hubspot.com/oauth/authorize"
	HubSpotTokenURL     = "https://api.hubapi.com/oauth/v1/token"
	HubSpotAPIURL       = "https://api.hubapi.com"
)

type hubspot struct {
	http *http.Client
	cfg  *oauth2.Config
	api  string
}

func newHubSpot(client *http.Client, c Config) *hubspot {
	cfg := oauth2Config(c, orDefault(c.AuthorizeURL, HubSpotAuthorizeURL), orDefault(c.TokenURL, HubSpotTokenURL),
		[]string{"oauth"}, oauth2.AuthStyleInParams)
	return &hubspot{http: client, cfg: cfg, api: orDefault(c.APIURL, HubSpotAPIURL)}
}

// Refresh implements Provider at the token endpoint.
func (h *hubspot) Refresh(ctx context.Context, refreshToken string) (Tokens, error) {
	return refresh(ctx, h.http, h.cfg, refreshToken)
}

func (h *hubspot) AuthCodeURL(r AuthRequest) string {
	r.Nonce = "" // not OpenID Connect: a nonce would be refused or ignored
	c := *h.cfg
	c.Scopes = mergeScopes(h.cfg.Scopes, r.Scopes)
	return c.AuthCodeURL(r.State, authOptions(r, false)...)
}

// Exchange reads the access token's metadata: the user (HubSpot user
// accounts are email-verified) and the portal (hub), the HubSpot tenant.
func (h *hubspot) Exchange(ctx context.Context, code string, r AuthRequest) (*Identity, error) {
	c := *h.cfg
	c.Scopes = mergeScopes(h.cfg.Scopes, r.Scopes)
	tok, err := exchange(ctx, h.http, &c, code, r, false)
	if err != nil {
		return nil, err
	}
	var info struct {
		User      string   `json:"user"`
		UserID    int64    `json:"user_id"`
		HubID     int64    `json:"hub_id"`
		HubDomain string   `json:"hub_domain"`
		Scopes    []string `json:"scopes"`
	}
	// The access token is in this URL's path: getJSON names it by the
	// label alone in its errors.
	if err := getJSON(ctx, h.http, "hubspot token metadata", h.api+"/oauth/v1/access-tokens/"+url.PathEscape(tok.AccessToken),
		tok.AccessToken, nil, &info); err != nil {
		return nil, err
	}
	if info.UserID == 0 {
		return nil, fmt.Errorf("%w: hubspot token info without user_id", ErrProvider)
	}
	id := &Identity{Provider: HubSpot, Subject: strconv.FormatInt(info.UserID, 10), Email: info.User,
		EmailVerified: info.User != "", Tenants: []Tenant{}, Tokens: providertokens.FromOAuth2(tok, c.Scopes)}
	if info.HubID != 0 {
		id.Tenants = append(id.Tenants, Tenant{ID: strconv.FormatInt(info.HubID, 10), Name: info.HubDomain})
	}
	if len(info.Scopes) > 0 {
		id.Tokens.Scopes = info.Scopes
	}
	return id, nil
}
