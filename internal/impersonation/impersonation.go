// Package impersonation lets an operator log in as a member, as the API
// family's dashboard does for support engineers: `latchkey member
// impersonate` mints a token for one member (Mint) and prints the
// project's login redirect URL carrying it
// (stytch_token_type=multi_tenant_impersonation); the widget on that page,
// or any caller of b2b/impersonation/authenticate on either face, redeems
// it for a session of the member (Authenticate).
//
// Security:
//   - the token is 256 bits of randomness, stored only as its SHA-256 and
//     found by that hash, so neither the table nor a lookup's timing says
//     anything about a live token; it expires TokenTTL after minting and is
//     spent by one conditional UPDATE, so two concurrent redemptions cannot
//     both win;
//   - failed redemptions count against the client's address (RedeemPerIP);
//   - the session has exactly one factor, of type "impersonated", naming
//     the impersonator; it lives at most session.ImpersonatedMaxMinutes,
//     cannot be extended or stepped up (package session enforces this), and
//     is never an intermediate session: the organization's auth methods and
//     MFA policy govern its members' own logins, not an operator's visit;
//   - the member must be active when the token is minted and when it is
//     redeemed, and an address change or a reactivation spends the member's
//     pending tokens (ReleaseAddress);
//   - minting and redeeming each commit with their audit event
//     (audit.ImpersonationTokenCreated, audit.MemberImpersonated), both
//     naming the impersonator: no token or session exists unrecorded.
package impersonation

import (
	"context"
	"embed"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/sweeper"
)

// TokenType is the stytch_token_type of the login URL Mint prints.
const TokenType = "multi_tenant_impersonation"

// TokenTTL is how long a minted token may be redeemed (the API family's
// default: five minutes). It is a link an operator opens at once.
const TokenTTL = 5 * time.Minute

// sweepKeep is how long a token row is kept past its expiry.
const sweepKeep = 24 * time.Hour

// RedeemPerIP limits redemptions per client address (keyed
// projectID|address, as every such limit); a correct token gives its
// attempt back, so only wrong, spent or expired tokens count. On the
// backend face the address is the customer's server and the rule does not
// apply (ratelimit.OnBehalf).
var RedeemPerIP = ratelimit.Rule{Name: "impersonation_redeem_ip", Limit: 20, Window: 10 * time.Minute,
	OnSuccess: ratelimit.Release, PerClientAddress: true}

// Deps are the services the module uses. Mint needs DB, Clock, Projects,
// Orgs; Authenticate also Sessions, Limiter and Audit.
type Deps struct {
	DB       *store.DB
	Clock    clock.Clock
	Projects *project.Store
	Orgs     *organization.Store
	Sessions *session.Service
	Limiter  *ratelimit.Limiter
	Audit    *audit.Log
}

// Service mints and redeems impersonation tokens.
type Service struct{ d Deps }

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the module's own tables.
func Migrations() store.Source { return store.Embedded("impersonation", migrationFiles) }

// Routes is the module's route table: the same call on both faces, the
// token being the credential.
func (s *Service) Routes() []httpapi.Route {
	return []httpapi.Route{
		httpapi.SDKRoute("POST /sdk/v1/b2b/impersonation/authenticate", s.handler("sdk")).LogsLogin("impersonation"),
		httpapi.BackendRoute("POST /v1/b2b/impersonation/authenticate", s.handler("backend")).LogsLogin("impersonation"),
	}
}

// ReleaseAddress implements organization.AddressHolder: the member's
// unredeemed tokens are spent when their address changes or they are
// reactivated, so a token minted before either cannot outlive it.
func (s *Service) ReleaseAddress(ctx context.Context, q store.Querier, r organization.Released) error {
	_, err := q.ExecContext(ctx, `UPDATE impersonation_tokens SET used_at = $1
		WHERE member_id = $2 AND project_id = $3 AND used_at IS NULL`, store.Millis(s.d.Clock.Now()), r.MemberID, r.ProjectID)
	if err != nil {
		return fmt.Errorf("impersonation: spend tokens of %s: %w", r.MemberID, err)
	}
	return nil
}

// Sweeps offers expired token rows to the sweeper (app.Sweeper).
func (s *Service) Sweeps() []sweeper.Sweepable {
	return []sweeper.Sweepable{sweeper.Expired{DB: s.d.DB, Table: "impersonation_tokens", Key: "token_id",
		Column: "expires_at", Keep: sweepKeep}}
}
