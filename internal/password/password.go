// Package password implements passwords for organization and discovery
// login: the strength check (zxcvbn or LUDS, plus the breach check),
// authentication with lockout, hash import and upgrade, and every reset
// path (email with and without PKCE, discovery, session, existing password,
// and the forced reset).
//
// Passwords belong to an email address within a project, shared by that
// address's memberships in every organization: discovery login by password
// needs exactly that, and it keeps one secret per person. Hashes are
// argon2id (see pwhash); a hash imported in another format, or with a
// weaker cost than configured, is upgraded at the next successful login.
//
// Security choices, each enforced here:
//   - A wrong password, an unknown email and a member without a password
//     answer the same error after the same amount of hashing work (a dummy
//     verification), so the endpoint does not reveal who is a member; an
//     imported hash of another cost comes as near to it as it can
//     (wrongPassword).
//   - Failed checks lock the email (and the client address) for a while,
//     counted in the database so every replica sees them.
//   - The same strength and breach verdict guards every place a password is
//     set, and a correct but breached password at login forces a reset.
//   - Reset tokens are random, stored hashed, expire, are single use under
//     concurrency and optionally bound to the browser by PKCE. A reset for
//     an address without a password (or not a member) sends a different
//     email, never a different response.
//   - Setting a password ends what the address's previous one could still
//     do: its reset links, the address's other sessions and its logins in
//     progress. Only the backend's import of a first password skips it,
//     no previous password having stood.
package password

import (
	"context"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/password/breach"
	"github.com/latchkey/latchkey/internal/password/pwhash"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Product is the SDK product gating the password routes.
const Product = "passwords"

// Token types carried by reset links (the page reads stytch_token_type).
const (
	TokenTypeReset          = "multi_tenant_passwords"
	TokenTypeDiscoveryReset = "discovery"
	TokenTypeMagicLink      = "multi_tenant_magic_links"
)

// Reset link lifetime bounds, in minutes.
const (
	DefaultResetMinutes = 30
	MinResetMinutes     = 5
	MaxResetMinutes     = 10080
)

// SessionResetWindow is how recent a session's newest factor must be for
// session/reset: a stolen, hours-old session must not be able to take over
// the account by changing its password.
const SessionResetWindow = 5 * time.Minute

// Rate limits on sends and checks (lockout rules are in lockout.go).
var (
	StrengthCheckPerIP = ratelimit.Rule{Name: "pw_strength_ip", Limit: 600, Window: 10 * time.Minute, PerClientAddress: true}
	ResetSendPerEmail  = ratelimit.Rule{Name: "pw_reset_send_email", Limit: 5, Window: 10 * time.Minute}
	ResetSendPerIP     = ratelimit.Rule{Name: "pw_reset_send_ip", Limit: 50, Window: 10 * time.Minute, PerClientAddress: true}
	ResetRedeemPerIP   = ratelimit.Rule{Name: "pw_reset_redeem_ip", Limit: 60, Window: 10 * time.Minute, OnSuccess: ratelimit.Release, PerClientAddress: true}
	SetPerIP           = ratelimit.Rule{Name: "pw_set_ip", Limit: 60, Window: 10 * time.Minute, PerClientAddress: true}
)

// LinkIssuer issues magic links (the magic-link service), used to verify
// the address of a reset asked for without a password.
type LinkIssuer interface {
	Issue(ctx context.Context, q store.Querier, p *project.Project, org *organization.Organization, m *organization.Member,
		challenge string, minutes int) (token, id string, err error)
	Burn(ctx context.Context, id string)
}

// Deps are the collaborators of the password service.
type Deps struct {
	DB         *store.DB
	Clock      clock.Clock
	Projects   *project.Store
	Orgs       *organization.Store
	Sessions   *session.Service
	Mailer     notify.Mailer
	Limiter    *ratelimit.Limiter
	Breach     *breach.Checker
	MagicLinks LinkIssuer
	Discovery  Discoverer
	Hashing    pwhash.Params
}

// Service is the password service.
type Service struct {
	d Deps
	// dummy is a hash at the current cost, verified when there is no real
	// one so that "no such member" costs what "wrong password" costs;
	// dummyCost is what verifying it costs (see wrongPassword).
	dummy     string
	dummyCost costEstimate
	// verifyHash is pwhash.Verify (a test may watch which hashes a check
	// verifies).
	verifyHash func(ctx context.Context, encoded, password string) (bool, error)
}

// New returns a password service.
func New(d Deps) (*Service, error) {
	dummy, err := pwhash.Dummy(d.Hashing)
	if err != nil {
		return nil, fmt.Errorf("password: %w", err)
	}
	s := &Service{d: d, dummy: dummy, verifyHash: pwhash.Verify}
	s.dummyCost.ns.Store(-1) // not measured yet
	return s, nil
}
