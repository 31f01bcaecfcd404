// Package oauth is B2B login with five OAuth providers (google,
// microsoft, hubspot, slack, github) in the organization and discovery
// flows, Google One Tap, and the members' OAuth registrations.
//
// The browser flow: a start route (api-reference 3.5) checks the project,
// organization and redirect URLs, stores a single-use state ticket
// (internal/flowtoken) and sends the browser to the provider; the one
// callback, {base}/v1/b2b/public/oauth/callback, redeems the state,
// exchanges the code, and redirects to the customer's page with
// stytch_token_type=oauth (or discovery_oauth) and a second single-use
// ticket, bound to the customer's PKCE challenge when one was sent. The
// authenticate calls redeem that ticket and end in session.Complete like
// every other primary method, so auth-method and MFA policies apply.
package oauth

import (
	"embed"
	"net/http"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/discovery"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Product is the SDK product gating the OAuth routes.
const Product = "oauth"

// Token types of the redirect to the customer's page.
const (
	TokenType          = "oauth"
	DiscoveryTokenType = "discovery_oauth"
)

// Ticket kinds and lifetimes: the state lives for one visit to the
// provider; the token for one page load on the customer's side.
const (
	kindState     flowtoken.Kind = "oauth_state"
	kindToken     flowtoken.Kind = "oauth_token"
	kindDiscovery flowtoken.Kind = "oauth_discovery_token"
	stateTTL                     = 10 * time.Minute
	tokenTTL                     = 10 * time.Minute
)

// Rate limits: starts per client (each writes a state), provider
// round trips per client (each costs an outbound exchange).
var (
	StartPerIP    = ratelimit.Rule{Name: "oauth_start_ip", Limit: 60, Window: 10 * time.Minute, PerClientAddress: true}
	CallbackPerIP = ratelimit.Rule{Name: "oauth_callback_ip", Limit: 60, Window: 10 * time.Minute, PerClientAddress: true}
	OneTapPerIP   = ratelimit.Rule{Name: "oauth_onetap_ip", Limit: 30, Window: 10 * time.Minute, PerClientAddress: true}
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations is the module's own schema ("oauth/NNNN").
func Migrations() store.Source {
	return store.Embedded("oauth", migrations)
}

// Deps are the module's collaborators.
type Deps struct {
	DB        *store.DB
	Clock     clock.Clock
	Projects  *project.Store
	Resolver  *project.Resolver
	Orgs      *organization.Store
	Sessions  *session.Service
	Discovery *discovery.Service
	Limiter   *ratelimit.Limiter
	Flows     *flowtoken.Store
	Box       *secretbox.Box // seals client secrets and provider tokens; nil refuses to store them
	Audit     audit.InTx     // records the registrations AddressVerified removes; nil records nothing
	// BaseURL is this server's public URL (read per request).
	BaseURL func() string
	// HTTP reaches the providers; nil for a default client with a timeout.
	HTTP *http.Client
}

// Module serves OAuth.
type Module struct {
	d       Deps
	factory *providers.Factory
	// refreshes makes concurrent refreshes of one registration's access
	// token on this replica one (refreshed).
	refreshes singleflight.Group
}

// New returns the module and installs its member decorator
// (oauth_registrations), which only adds the member's rows of
// member_oauth_registrations: member loads skip it when there are none.
// It also registers the module as an organization.UnprovenAccess, so that
// a member's first proven address ends the registrations that did not
// prove it, and as an organization.MemberDeletionHook, so that a deleted
// member's provider tokens go with the deletion, and as the
// organization.OAuthTenantMembers that vouch for an organization at an
// OAuth tenant in discovery.
func New(d Deps) *Module {
	m := &Module{d: d, factory: providers.NewFactory(d.HTTP)}
	d.Orgs.AddMemberDecorator("member_oauth_registrations", m.decorateMembers)
	d.Orgs.AddUnprovenAccess(m)
	d.Orgs.AddMemberDeletionHook(m)
	d.Orgs.UseOAuthTenantMembers(m)
	d.Sessions.OnStart(m.registerDiscovered)
	return m
}

// CallbackURL is the one redirect URI to register at every provider.
func (m *Module) CallbackURL() string { return m.d.BaseURL() + "/v1/b2b/public/oauth/callback" }

// Routes lists the module's routes on every face.
func (m *Module) Routes() []httpapi.Route {
	pub, backend := httpapi.PublicRoute, httpapi.BackendRoute
	sdk := httpapi.SDKRouteFor(Product)
	return []httpapi.Route{
		pub("GET /v1/b2b/public/oauth/{provider}/start", http.HandlerFunc(m.startOrganization)),
		pub("GET /v1/b2b/public/oauth/{provider}/discovery/start", http.HandlerFunc(m.startDiscovery)),
		pub("GET /v1/b2b/public/oauth/callback", http.HandlerFunc(m.callback)),

		sdk("POST /sdk/v1/b2b/oauth/authenticate", m.handleSDKAuthenticate).LogsLogin("oauth"),
		sdk("POST /sdk/v1/b2b/oauth/discovery/authenticate", m.handleDiscoveryAuthenticate).LogsLogin("oauth"),
		sdk("GET /sdk/v1/b2b/oauth/google/onetap/start", m.handleOneTapStart),
		sdk("POST /sdk/v1/b2b/oauth/google/onetap/submit", m.handleOneTapSubmit),
		sdk("POST /sdk/v1/b2b/oauth/google/onetap/discovery/submit", m.handleOneTapDiscoverySubmit),

		backend("POST /v1/b2b/oauth/authenticate", m.handleAuthenticate).LogsLogin("oauth"),
		backend("POST /v1/b2b/oauth/discovery/authenticate", m.handleDiscoveryAuthenticate).LogsLogin("oauth"),
		backend("GET /v1/b2b/organizations/{organization_id}/members/{member_id}/oauth_providers/{provider}", m.handleProviderInfo),
	}
}

// Watches are the module's tables whose changes alter cached member
// answers (oauth_registrations).
func Watches() []changefeed.Watch {
	return []changefeed.Watch{{Table: "member_oauth_registrations", KeyColumn: "member_id", Scope: changefeed.Member}}
}
