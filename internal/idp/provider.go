package idp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/m2m"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/outbound"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/rbac"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Lifetimes of what the provider issues.
const (
	codeTTL         = time.Minute // authorization codes (RFC 6749 4.1.2: short)
	idTokenTTL      = time.Hour   // ID tokens
	refreshTokenTTL = 30 * 24 * time.Hour
	codeKind        = flowtoken.Kind("idp_code")
)

// Provider is the OpenID Connect provider of every project: issuer
// {base}/v1/public/{project_id}.
type Provider struct {
	db       *store.DB
	clock    clock.Clock
	log      *slog.Logger
	apps     *connectedapps.Store
	orgs     *organization.Store
	projects *project.Store
	flows    *flowtoken.Store
	limiter  *ratelimit.Limiter
	baseURL  func() string
	m2m      *m2m.Store
	policies Policies
	audit    Auditor

	// keySets gives the project's JWKS (the session service's: one
	// key set, one shape, one cache for both faces).
	keySets KeySets

	// cachedOrgs answers the organization reads of token checks
	// (appAllowed) from memory; nil reads orgs.
	cachedOrgs organization.CachedOrgs
}

// KeySets gives a project's public signing keys as a JWKS
// (session.Service).
type KeySets interface {
	KeySet(ctx context.Context, projectID string) (session.KeySet, error)
}

// Auditor files audit events (audit.Log).
type Auditor interface {
	Record(ctx context.Context, e audit.Event) error
}

// Policies is what the provider needs from RBAC (the rbac service): the
// project's effective policy, whose custom scopes map to permissions, and
// the same read inside a transaction that must commit under it
// (HoldPolicy: a policy change waits for the transaction, or committed
// before it read).
type Policies interface {
	Policy(ctx context.Context, projectID string) (*rbac.Policy, error)
	HoldPolicy(ctx context.Context, q store.Querier, projectID string) (*rbac.Policy, error)
}

// Issuer is the issuer of ID tokens and discovery (OIDC Core 2, RFC 8414).
func (p *Provider) Issuer(projectID string) string {
	return strings.TrimSuffix(p.baseURL(), "/") + "/v1/public/" + projectID
}

// AccessTokenIssuer is the issuer of access tokens: the one the API
// family's server SDKs accept when they verify a token locally against the
// session JWKS (idp.introspectTokenLocal, m2m.authenticateToken).
func AccessTokenIssuer(projectID string) string { return "stytch.com/" + projectID }

// policy loads the project's RBAC policy. Without one wired (or when it
// cannot be loaded) there are no custom scopes and no permissions: only
// the built-in scopes remain usable.
func (p *Provider) policy(ctx context.Context, projectID string) (*rbac.Policy, error) {
	if p.policies == nil {
		return rbac.Effective(rbac.Policy{}), nil
	}
	pol, err := p.policies.Policy(ctx, projectID)
	if err != nil {
		return nil, fmt.Errorf("idp: rbac policy: %w", err)
	}
	return pol, nil
}

// holdPolicy is policy read in q under the policy lock
// (Policies.HoldPolicy).
func (p *Provider) holdPolicy(ctx context.Context, q store.Querier, projectID string) (*rbac.Policy, error) {
	if p.policies == nil {
		return rbac.Effective(rbac.Policy{}), nil
	}
	pol, err := p.policies.HoldPolicy(ctx, q, projectID)
	if err != nil {
		return nil, fmt.Errorf("idp: rbac policy: %w", err)
	}
	return pol, nil
}

// projectOf resolves {project_id} of a public route.
func (p *Provider) projectOf(r *http.Request) (*project.Project, error) {
	pr, err := p.projects.ByID(r.Context(), r.PathValue("project_id"))
	if err != nil {
		if project.IsNotFound(err) {
			return nil, &oauthError{404, "invalid_request", "Unknown project."}
		}
		return nil, err
	}
	return pr, nil
}

// AuthorizationURL returns the operator's page that mounts the widget.
func (p *Provider) AuthorizationURL(ctx context.Context, projectID string) (string, error) {
	var u string
	err := p.db.Read().QueryRowContext(ctx, `SELECT authorization_url FROM idp_settings WHERE project_id = $1`, projectID).Scan(&u)
	if err = store.MapError(err); errors.Is(err, store.ErrNotFound) || (err == nil && u == "") {
		return "", errNoAuthorizationURL
	}
	if err != nil {
		return "", fmt.Errorf("idp: authorization url: %w", err)
	}
	return u, nil
}

var errNoAuthorizationURL = &oauthError{400, "invalid_request",
	"This project has no identity-provider authorization URL: run `latchkey project update --project ID --idp-authorization-url URL` with the page that mounts the widget's identity provider."}

// SetAuthorizationURL sets the operator's authorization page (the CLI's
// --idp-authorization-url). It must be an absolute https URL (http only to
// a loopback host) without query or fragment; "" clears it. q may be a transaction: the CLI sets it together
// with the project's other settings.
func SetAuthorizationURL(ctx context.Context, q store.Querier, c clock.Clock, projectID, u string) error {
	if u != "" {
		if err := checkPageURL(u); err != nil {
			return err
		}
	}
	_, err := q.ExecContext(ctx, `INSERT INTO idp_settings (project_id, authorization_url, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (project_id) DO UPDATE SET authorization_url = excluded.authorization_url, updated_at = excluded.updated_at`,
		projectID, u, store.Millis(c.Now()))
	if err != nil {
		return fmt.Errorf("idp: set authorization url: %w", err)
	}
	return nil
}

// AuthorizationURLOf reads the setting for the CLI ("" when unset).
func AuthorizationURLOf(ctx context.Context, db *store.DB, projectID string) (string, error) {
	var u string
	err := db.Read().QueryRowContext(ctx, `SELECT authorization_url FROM idp_settings WHERE project_id = $1`, projectID).Scan(&u)
	if err = store.MapError(err); errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	return u, err
}

func writeJSON(w http.ResponseWriter, v any) {
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(v)
}

// logged logs server errors of the protocol endpoints (whose bodies hide
// the cause) and returns err.
func (p *Provider) logged(r *http.Request, err error) error {
	var oe *oauthError
	if err != nil && !errors.As(err, &oe) && httpapi.PublicError(err).Status >= 500 {
		p.log.ErrorContext(r.Context(), "idp endpoint failed", "request_id", httpapi.RequestID(r.Context()), "path", r.URL.Path, "cause", err.Error())
	}
	return err
}

func unixTime(s int64) time.Time { return time.Unix(s, 0).UTC() }

// checkPageURL validates the operator's authorization page: https, or
// http to a loopback host only, as every other URL the CLI takes. Discovery
// names it as the authorization endpoint, and a connected app sends its
// users there to log in and consent: over plain http anyone on the path
// could serve a look-alike page or read what the page sends on.
func checkPageURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" || u.RawQuery != "" {
		return fmt.Errorf("idp: the authorization URL must be an absolute https URL without query or fragment, got %q", s)
	}
	if u.Scheme == "http" && !outbound.IsLoopbackHost(u.Hostname()) {
		return fmt.Errorf("idp: the authorization URL %q must use https (http is allowed only to a loopback host)", s)
	}
	return nil
}
