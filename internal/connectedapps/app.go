// Package connectedapps is the registry of a project's connected apps: the
// OAuth 2.1 / OpenID Connect clients of Latchkey's identity provider. It
// owns the clients (four types, exact redirect URLs, hashed secrets with
// rotation), the consent members have granted them, and the organization
// policy that decides which apps an organization's members may use.
package connectedapps

import (
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clientsecret"
	"github.com/latchkey/latchkey/internal/displaytext"
)

// Client types. Public clients (browser and native apps) cannot keep a
// secret and must use PKCE; first-party clients skip the consent screen.
const (
	FirstParty       = "first_party"
	ThirdParty       = "third_party"
	FirstPartyPublic = "first_party_public"
	ThirdPartyPublic = "third_party_public"
)

// Access token lifetime bounds, in minutes.
const (
	DefaultAccessTokenMinutes = 60
	maxAccessTokenMinutes     = 24 * 60
	maxURLs                   = 50
)

// App is a connected app as stored.
type App struct {
	ProjectID                     string
	ClientID                      string
	ClientType                    string
	ClientName                    string
	ClientDescription             string
	Status                        string
	FullAccessAllowed             bool
	RedirectURLs                  []string
	PostLogoutRedirectURLs        []string
	AccessTokenExpiryMinutes      int
	AccessTokenCustomAudience     string
	AccessTokenTemplateContent    string
	IDTokenTemplateContent        string
	BypassConsentForOfflineAccess bool
	LogoURL                       string
	Secret                        clientsecret.Pair
	CreatedAt, UpdatedAt          time.Time
}

// Public reports whether the client has no secret.
func (a *App) Public() bool {
	return a.ClientType == FirstPartyPublic || a.ClientType == ThirdPartyPublic
}

// FirstPartyApp reports whether the client belongs to the project's owner.
func (a *App) FirstPartyApp() bool {
	return a.ClientType == FirstParty || a.ClientType == FirstPartyPublic
}

// MayHoldFullAccess reports whether the app's tokens may carry full_access,
// which turns an access token back into a member session
// (exchange_access_token): only an app of the project's owner, and only
// while the operator allows it. Every place that grants or honours
// full_access asks here, so the two conditions cannot drift apart; a
// third-party row stored with full_access_allowed before it was refused
// still gets nothing.
func (a *App) MayHoldFullAccess() bool { return a.FirstPartyApp() && a.FullAccessAllowed }

// HasRedirectURL matches a redirect URI exactly, byte for byte (RFC 9700
// 4.1.3: no prefix, wildcard or normalised matching).
func (a *App) HasRedirectURL(u string) bool { return u != "" && slices.Contains(a.RedirectURLs, u) }

// HasPostLogoutRedirectURL matches a post-logout redirect URI exactly.
func (a *App) HasPostLogoutRedirectURL(u string) bool {
	return u != "" && slices.Contains(a.PostLogoutRedirectURLs, u)
}

// Fields are the settable fields of create and update. Nil means "not
// given" (create uses the default, update keeps the value).
type Fields struct {
	ClientName                    *string   `json:"client_name"`
	ClientDescription             *string   `json:"client_description"`
	RedirectURLs                  *[]string `json:"redirect_urls"`
	FullAccessAllowed             *bool     `json:"full_access_allowed"`
	AccessTokenExpiryMinutes      *int      `json:"access_token_expiry_minutes"`
	AccessTokenCustomAudience     *string   `json:"access_token_custom_audience"`
	AccessTokenTemplateContent    *string   `json:"access_token_template_content"`
	PostLogoutRedirectURLs        *[]string `json:"post_logout_redirect_urls"`
	LogoURL                       *string   `json:"logo_url"`
	BypassConsentForOfflineAccess *bool     `json:"bypass_consent_for_offline_access"`
	IDTokenTemplateContent        *string   `json:"id_token_template_content"`
}

// apply validates f and writes the given fields onto a.
func (f Fields) apply(a *App) error {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = strings.TrimSpace(*v)
		}
	}
	if err := checkShown(f.ClientName, f.ClientDescription); err != nil {
		return err
	}
	set(&a.ClientName, f.ClientName)
	set(&a.ClientDescription, f.ClientDescription)
	if displaytext.Blank(a.ClientName) {
		a.ClientName = "" // only invisible characters: as blank as spaces
	}
	set(&a.AccessTokenCustomAudience, f.AccessTokenCustomAudience)
	if f.FullAccessAllowed != nil {
		// A third party's token must never become a member session; only
		// the value that would allow it is refused, so turning it off
		// always works.
		if *f.FullAccessAllowed && !a.FirstPartyApp() {
			return apierr.Invalid("full_access_allowed",
				"full_access_allowed is valid for first-party apps only (client_type first_party or first_party_public).")
		}
		a.FullAccessAllowed = *f.FullAccessAllowed
	}
	if f.BypassConsentForOfflineAccess != nil {
		a.BypassConsentForOfflineAccess = *f.BypassConsentForOfflineAccess
	}
	if f.AccessTokenExpiryMinutes != nil {
		m := *f.AccessTokenExpiryMinutes
		if m < 1 || m > maxAccessTokenMinutes {
			return apierr.Invalid("access_token_expiry_minutes", "access_token_expiry_minutes must be between 1 and 1440.")
		}
		a.AccessTokenExpiryMinutes = m
	}
	// Claim templates would need a template language; refusing them is
	// better than accepting a setting that silently does nothing.
	for name, v := range map[string]*string{"access_token_template_content": f.AccessTokenTemplateContent,
		"id_token_template_content": f.IDTokenTemplateContent} {
		if v != nil && strings.TrimSpace(*v) != "" {
			return apierr.Invalid(name, name+" is not supported: custom claim templates are not available.")
		}
	}
	if f.LogoURL != nil {
		logo := strings.TrimSpace(*f.LogoURL)
		if logo != "" {
			if u, err := url.Parse(logo); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return apierr.Invalid("logo_url", "logo_url must be an absolute http(s) URL.")
			}
		}
		a.LogoURL = logo
	}
	if f.RedirectURLs != nil {
		urls, err := redirectURLs("redirect_urls", *f.RedirectURLs)
		if err != nil {
			return err
		}
		a.RedirectURLs = urls
	}
	if f.PostLogoutRedirectURLs != nil {
		urls, err := redirectURLs("post_logout_redirect_urls", *f.PostLogoutRedirectURLs)
		if err != nil {
			return err
		}
		a.PostLogoutRedirectURLs = urls
	}
	return nil
}

// Bounds of the name and description the consent screen shows, in
// characters, after trimming (the vendor states none): a name as long as a
// member's, a description of a paragraph. A longer one would fill the
// screen a member decides on, and is answered with every authorize start.
const (
	MaxClientName        = 256
	MaxClientDescription = 1024
)

// checkShown refuses, in the name and description the consent screen
// shows, the bidirectional formatting characters, which make a name read
// other words than it holds (displaytext), and control characters: all of
// them in the name, which is one line, all but line breaks and tabs in a
// description, which may have several (displaytext.ForbiddenInText); and
// either past its bound.
func checkShown(name, description *string) error {
	if name != nil {
		if _, why := displaytext.Line("client_name", *name, MaxClientName); why != "" {
			return apierr.Invalid("client_name", why)
		}
	}
	if description != nil {
		if _, why := displaytext.Text("client_description", *description, MaxClientDescription); why != "" {
			return apierr.Invalid("client_description", why)
		}
	}
	return nil
}

// redirectURLs validates a list of redirect URIs (RFC 6749 3.1.2, RFC 9700
// 2.1): absolute, no fragment, https, or http only on a loopback host, or a
// private-use scheme for native apps; never a script or data scheme.
func redirectURLs(field string, in []string) ([]string, error) {
	if len(in) > maxURLs {
		return nil, apierr.Invalid(field, field+" may list at most 50 URLs.")
	}
	out := make([]string, 0, len(in))
	for _, raw := range in {
		u, err := url.Parse(raw)
		bad := err != nil || u.Scheme == "" || u.Fragment != "" || strings.Contains(raw, "#") || raw != strings.TrimSpace(raw)
		if !bad {
			switch strings.ToLower(u.Scheme) {
			case "https":
				bad = u.Host == ""
			case "http":
				bad = !loopback(u.Hostname())
			case "javascript", "data", "vbscript", "file", "blob":
				bad = true
			}
		}
		if bad {
			return nil, apierr.Invalid(field, field+" entries must be absolute URLs without a fragment: https, http on localhost or a loopback address, or an app's private-use scheme.")
		}
		if !slices.Contains(out, raw) {
			out = append(out, raw)
		}
	}
	return out, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// validType checks a client type.
func validType(t string) error {
	switch t {
	case FirstParty, ThirdParty, FirstPartyPublic, ThirdPartyPublic:
		return nil
	}
	return apierr.Invalid("client_type", "client_type must be first_party, third_party, first_party_public or third_party_public.")
}
