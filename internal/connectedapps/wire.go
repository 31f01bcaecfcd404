package connectedapps

import "github.com/latchkey/latchkey/internal/httpapi"

// ConnectedApp is the wire shape of a client (the Node client's
// ConnectedApp, ConnectedAppWithClientSecret and
// ConnectedAppWithNextClientSecret in one: the secrets appear only in the
// answer that created them, which has no creation_method: see
// withSecrets).
type ConnectedApp struct {
	ClientID                      string   `json:"client_id"`
	ClientName                    string   `json:"client_name"`
	ClientDescription             string   `json:"client_description"`
	Status                        string   `json:"status"`
	FullAccessAllowed             bool     `json:"full_access_allowed"`
	ClientType                    string   `json:"client_type"`
	RedirectURLs                  []string `json:"redirect_urls"`
	AccessTokenExpiryMinutes      int      `json:"access_token_expiry_minutes"`
	AccessTokenTemplateContent    string   `json:"access_token_template_content"`
	PostLogoutRedirectURLs        []string `json:"post_logout_redirect_urls"`
	BypassConsentForOfflineAccess bool     `json:"bypass_consent_for_offline_access"`
	CreationMethod                string   `json:"creation_method,omitempty"`
	IDTokenTemplateContent        string   `json:"id_token_template_content"`
	ClientSecretLastFour          string   `json:"client_secret_last_four,omitempty"`
	NextClientSecretLastFour      string   `json:"next_client_secret_last_four,omitempty"`
	ClientSecret                  string   `json:"client_secret,omitempty"`
	NextClientSecret              string   `json:"next_client_secret,omitempty"`
	AccessTokenCustomAudience     string   `json:"access_token_custom_audience,omitempty"`
	LogoURL                       string   `json:"logo_url,omitempty"`
}

// Wire renders a client without secrets.
func (a *App) Wire() *ConnectedApp {
	return &ConnectedApp{ClientID: a.ClientID, ClientName: a.ClientName, ClientDescription: a.ClientDescription,
		Status: a.Status, FullAccessAllowed: a.FullAccessAllowed, ClientType: a.ClientType, RedirectURLs: a.RedirectURLs,
		AccessTokenExpiryMinutes: a.AccessTokenExpiryMinutes, AccessTokenTemplateContent: a.AccessTokenTemplateContent,
		PostLogoutRedirectURLs: a.PostLogoutRedirectURLs, BypassConsentForOfflineAccess: a.BypassConsentForOfflineAccess,
		CreationMethod: "api", IDTokenTemplateContent: a.IDTokenTemplateContent, ClientSecretLastFour: a.Secret.LastFour,
		NextClientSecretLastFour: a.Secret.NextLastFour, AccessTokenCustomAudience: a.AccessTokenCustomAudience, LogoURL: a.LogoURL}
}

// withSecrets is w as the answer that created a secret or the next secret
// shows it: ConnectedAppWithClientSecret and
// ConnectedAppWithNextClientSecret declare no creation_method, so that
// answer leaves it out (internal/apptest/backend_wire.json).
func (w *ConnectedApp) withSecrets(secret, next string) *ConnectedApp {
	w.ClientSecret, w.NextClientSecret, w.CreationMethod = secret, next, ""
	return w
}

// AppResponse answers create, get, update and the rotation steps.
type AppResponse struct {
	httpapi.Common
	ConnectedApp *ConnectedApp `json:"connected_app"`
}

// DeleteResponse answers a delete.
type DeleteResponse struct {
	httpapi.Common
	ClientID string `json:"client_id"`
}

// ResultsMetadata describes a search page.
type ResultsMetadata struct {
	Total      int     `json:"total"`
	NextCursor *string `json:"next_cursor,omitempty"`
}

// SearchResponse answers a search.
type SearchResponse struct {
	httpapi.Common
	ConnectedApps   []*ConnectedApp `json:"connected_apps"`
	ResultsMetadata ResultsMetadata `json:"results_metadata"`
}

// OrgApp is an app as organizations and members see it.
type OrgApp struct {
	ConnectedAppID string `json:"connected_app_id"`
	Name           string `json:"name"`
	Description    string `json:"description"`
	ClientType     string `json:"client_type"`
	LogoURL        string `json:"logo_url,omitempty"`
}

func orgApp(a *App) OrgApp {
	return OrgApp{ConnectedAppID: a.ClientID, Name: a.ClientName, Description: a.ClientDescription,
		ClientType: a.ClientType, LogoURL: a.LogoURL}
}

// OrgAppsResponse lists an organization's apps.
type OrgAppsResponse struct {
	httpapi.Common
	ConnectedApps []OrgApp `json:"connected_apps"`
}

// ActiveMember is a member's grant of one app.
type ActiveMember struct {
	MemberID      string   `json:"member_id"`
	GrantedScopes []string `json:"granted_scopes"`
}

// OrgAppResponse is one app of an organization with its members' grants.
type OrgAppResponse struct {
	httpapi.Common
	OrgApp
	ActiveMembers []ActiveMember `json:"active_members"`
}

// MemberApp is an app a member granted (scopes as one space-separated
// string, as the Node client declares).
type MemberAppWire struct {
	OrgApp
	ScopesGranted string `json:"scopes_granted"`
}

// MemberAppsResponse lists a member's apps.
type MemberAppsResponse struct {
	httpapi.Common
	ConnectedApps []MemberAppWire `json:"connected_apps"`
}

// RevokeResponse answers a revoke.
type RevokeResponse struct {
	httpapi.Common
}
