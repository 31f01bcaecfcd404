// Package trustedauth is trusted auth tokens: a project registers token
// profiles (an outside issuer, the audience its tokens name, and its public
// keys as a JWKS URL or PEM files), and b2b/sessions/attest exchanges a JWT
// that issuer signed for a member session.
//
// An attested token is checked like an ID token (signature by one of the
// profile's keys, issuer, audience, expiry and not-before with a small
// skew), its email claim names the member (found by email in the
// organization, or provisioned just in time when the profile allows it and
// the signed token itself names the organization), and its signed claims
// and token id claim (jti by default) are remembered in the database, per
// project and issuer, until the token expires, at most a day ahead, so each
// token is spent once on any replica and through any of the project's
// profiles. The session comes from the same completion seam as every
// login, so the organization's auth and MFA policies apply.
//
// b2b/sessions/migrate is the other way an outside identity becomes a
// session: a session token of the provider a project moves from is shown
// to that provider's userinfo endpoint, and the email it answers names an
// existing member.
package trustedauth

import (
	"embed"
	"net/http"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Failures per client address (keyed projectID|address, as every such
// limit): tokens are signed and sessions checked by their provider, so
// only failures count (ratelimit.GuardUnguessable). AttestPerIP limits
// failed attestations; MigratePerIP failed migrations, which come only
// from the backend face today, where per-address rules do not apply
// (ratelimit.OnBehalf).
var (
	AttestPerIP  = ratelimit.Rule{Name: "trusted_attest_ip", Limit: 30, Window: 10 * time.Minute, PerClientAddress: true}
	MigratePerIP = ratelimit.Rule{Name: "session_migrate_ip", Limit: 30, Window: 10 * time.Minute, PerClientAddress: true}
)

// Deps are the services the module uses.
type Deps struct {
	DB       *store.DB
	Clock    clock.Clock
	Orgs     *organization.Store
	Sessions *session.Service
	Limiter  *ratelimit.Limiter
	// HTTP fetches the profiles' JWKS; nil means a client with the fetch
	// timeout.
	HTTP *http.Client
}

// Service runs trusted auth tokens.
type Service struct {
	d        Deps
	keys     *keyCache
	userinfo *http.Client // d.HTTP, redirects checked
}

// New returns the service.
func New(d Deps) *Service {
	if d.HTTP == nil {
		d.HTTP = &http.Client{Timeout: fetchTimeout}
	}
	return &Service{d: d, keys: &keyCache{http: checkedClient(d.HTTP, "jwks_url"), clock: d.Clock},
		userinfo: checkedClient(d.HTTP, "userinfo_url")}
}

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the module's own tables.
func Migrations() store.Source {
	return store.Embedded("trustedauth", migrationFiles)
}

// Routes is the module's route table.
func (s *Service) Routes() []httpapi.Route {
	h := Handlers{s: s}
	return []httpapi.Route{
		// The same call on both faces: the token is the credential.
		{Face: httpapi.SDK, Pattern: "POST /sdk/v1/b2b/sessions/attest", Handler: h.Attest, Audit: httpapi.Audit{Login: "trusted_auth_token"}},
		{Face: httpapi.Backend, Pattern: "POST /v1/b2b/sessions/attest", Handler: h.Attest, Audit: httpapi.Audit{Login: "trusted_auth_token"}},
		// Backend only, as in the Node client: the caller holds another
		// provider's session token.
		{Face: httpapi.Backend, Pattern: "POST /v1/b2b/sessions/migrate", Handler: h.Migrate, Audit: httpapi.Audit{Login: "session_migration"}},
	}
}

// Handlers serves the module's routes.
type Handlers struct {
	s *Service
}
