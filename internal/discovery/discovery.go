// Package discovery lets a person who does not know their organization
// prove an email address (magic link or email code, later password and
// OAuth), see the organizations that address belongs to or may join, and
// then log in to one, create one, or switch organization with a session.
//
// Proving the email yields a discovery intermediate session (IST) that
// knows only the address; choosing an organization redeems it through
// session.Complete, so the organization's auth and MFA policies apply.
package discovery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/emailotp"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Membership types.
const (
	ActiveMember    = "active_member"
	PendingMember   = "pending_member"
	InvitedMember   = "invited_member"
	EligibleByMail  = "eligible_to_join_by_email_domain"
	EligibleByOAuth = "eligible_to_join_by_oauth_tenant"
)

// TokenType is the stytch_token_type of discovery magic links.
const TokenType = "discovery"

// Rate limits for discovery sends and checks.
var (
	SendPerEmail  = ratelimit.Rule{Name: "disc_send_email", Limit: 5, Window: 10 * time.Minute}
	SendPerIP     = ratelimit.Rule{Name: "disc_send_ip", Limit: 50, Window: 10 * time.Minute, PerClientAddress: true}
	CheckPerEmail = ratelimit.Rule{Name: "disc_check_email", Limit: 15, Window: 10 * time.Minute}
	CheckPerIP    = ratelimit.Rule{Name: "disc_check_ip", Limit: 100, Window: 10 * time.Minute, PerClientAddress: true}
	// ExchangesPerIP is the one rule of wrong ISTs from an address
	// (session.IntermediateFailuresPerIP): the exchange, like the routes
	// that only look at an IST (session.Service.PeekIntermediate), counts
	// its failures after the check, all in one count, and a correct IST
	// always passes.
	ExchangesPerIP = session.IntermediateFailuresPerIP
)

// Deps are the collaborators of the discovery service.
type Deps struct {
	DB       *store.DB
	Clock    clock.Clock
	Projects *project.Store
	Orgs     *organization.Store
	Sessions *session.Service
	Mailer   notify.Mailer
	Limiter  *ratelimit.Limiter
	Box      *secretbox.Box // tags the codes (emailotp.Codes.Box)
}

// Service runs discovery.
type Service struct {
	d     Deps
	codes emailotp.Codes
}

// New returns a discovery service.
func New(d Deps) *Service {
	return &Service{d: d, codes: emailotp.Codes{Table: "discovery_email_otps", IDColumn: "discovery_email_otp_id",
		KeyColumn: "email_address", Clock: d.Clock, Box: d.Box}}
}

// Membership says how the person relates to a discovered organization.
type Membership struct {
	Type    string               `json:"type"`
	Details map[string]any       `json:"details"`
	Member  *organization.Member `json:"member"`
}

// DiscoveredOrganization is one entry of discovered_organizations.
type DiscoveredOrganization struct {
	Organization        *organization.Organization `json:"organization"`
	Membership          Membership                 `json:"membership"`
	MemberAuthenticated bool                       `json:"member_authenticated"`
	PrimaryRequired     *session.PrimaryRequired   `json:"primary_required"`
	MFARequired         *session.MFARequired       `json:"mfa_required"`
}

// Response is the discovery answer of api-reference 3.0.
type Response struct {
	httpapi.Common
	IntermediateSessionToken string                   `json:"intermediate_session_token"`
	EmailAddress             string                   `json:"email_address"`
	DiscoveredOrganizations  []DiscoveredOrganization `json:"discovered_organizations"`
	OrganizationIDHint       *string                  `json:"organization_id_hint"`
}

// Discovered issues a discovery IST for a verified email and lists its
// organizations. It opens its own transaction: call it outside any other.
func (s *Service) Discovered(ctx context.Context, p *project.Project, email string, factor session.Factor) (*Response, error) {
	var out *Response
	err := s.d.DB.Tx(ctx, func(q store.Querier) error {
		var err error
		out, err = s.DiscoveredTx(ctx, q, p, email, factor)
		return err
	})
	return out, err
}

// DiscoveredTx is Discovered inside the caller's transaction q (for flows
// that redeem a one-time secret and must issue the IST atomically).
func (s *Service) DiscoveredTx(ctx context.Context, q store.Querier, p *project.Project, email string, factor session.Factor) (*Response, error) {
	if factor.LastAuthenticatedAt.IsZero() {
		factor.LastAuthenticatedAt = s.d.Clock.Now().Truncate(time.Millisecond)
	}
	if factor.SequenceOrder == "" {
		factor.SequenceOrder = session.Primary
	}
	tok, err := s.d.Sessions.IssueIntermediate(ctx, q, p, session.Intermediate{Email: email, Factors: []session.Factor{factor}})
	if err != nil {
		return nil, err
	}
	orgs, err := s.list(ctx, q, p, email, []session.Factor{factor})
	if err != nil {
		return nil, err
	}
	return &Response{IntermediateSessionToken: tok, EmailAddress: email, DiscoveredOrganizations: orgs}, nil
}

// list finds the organizations email belongs to, then those whose email
// domain or OAuth tenant rule admits it, leaving out those where it is a
// deleted member. primary_required is set where the organization
// will not accept the factors already proven.
func (s *Service) list(ctx context.Context, q store.Querier, p *project.Project, email string, factors []session.Factor) ([]DiscoveredOrganization, error) {
	out := []DiscoveredOrganization{}
	seen := map[string]bool{}
	members, err := s.d.Orgs.MembersByEmail(ctx, q, p.ID, email)
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		org, err := s.d.Orgs.GetTx(ctx, q, p.ID, m.OrganizationID)
		if err != nil {
			return nil, err
		}
		t := map[string]string{organization.StatusActive: ActiveMember, organization.StatusPending: PendingMember,
			organization.StatusInvited: InvitedMember}[m.Status]
		if t == "" {
			continue
		}
		seen[org.OrganizationID] = true
		out = append(out, s.entry(org, Membership{Type: t, Member: m}, email, factors))
	}
	// Where the address is a deleted member, that member still holds it:
	// joining by a domain or OAuth tenant rule is refused there
	// (inactive_member), and no membership type names a deleted member, so
	// the organization is not listed at all.
	deleted, err := s.d.Orgs.DeletedMembershipOrgs(ctx, q, p.ID, email)
	if err != nil {
		return nil, err
	}
	for _, id := range deleted {
		seen[id] = true
	}
	// So is an address a member of an organization had before an address
	// change: it stays reserved for them there until unlinked, and a JIT
	// join is refused (duplicate_member_email). Asked of each organization
	// a rule would offer (IsRetiredIn, on the retired table's key).
	domain := emailaddr.Domain(email)
	eligible, err := s.d.Orgs.JoinableByDomain(ctx, q, p.ID, domain)
	if err != nil {
		return nil, err
	}
	// Where another organization claims the domain, joining by the domain
	// rule is refused (claimedElsewhere), so such an organization is not
	// offered. A claim alone does not make its claimant eligible: it keeps
	// the domain's people out of other organizations, and the claimant's
	// own email JIT settings say whether they may join it.
	var claimant string
	if len(eligible) > 0 {
		claimant, err = s.d.Orgs.ClaimantOf(ctx, q, p.ID, domain)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	for _, org := range eligible {
		if claimant != "" && claimant != org.OrganizationID {
			continue
		}
		if seen[org.OrganizationID] {
			continue
		}
		seen[org.OrganizationID] = true
		if retired, err := s.d.Orgs.IsRetiredIn(ctx, q, org.OrganizationID, email); err != nil {
			return nil, err
		} else if retired {
			continue // reserved for the member it was retired by, as above
		}
		out = append(out, s.entry(org, Membership{Type: EligibleByMail, Details: map[string]any{"domain": domain}}, email, factors))
	}
	// An OAuth login also proves membership of the provider's tenants
	// (workspace, team, organization, portal): organizations admitting
	// one of them by OAuth tenant JIT, and vouched for at it (as for
	// domains: JoinableByOAuthTenant), are joinable.
	for _, f := range factors {
		provider, of, ok := f.OAuth()
		if !ok {
			continue
		}
		matches, err := s.d.Orgs.JoinableByOAuthTenant(ctx, q, p.ID, provider, of.TenantIDs())
		if err != nil {
			return nil, err
		}
		for _, m := range matches {
			if seen[m.Organization.OrganizationID] {
				continue
			}
			seen[m.Organization.OrganizationID] = true
			if retired, err := s.d.Orgs.IsRetiredIn(ctx, q, m.Organization.OrganizationID, email); err != nil {
				return nil, err
			} else if retired {
				continue // reserved for the member it was retired by, as above
			}
			out = append(out, s.entry(m.Organization, Membership{Type: EligibleByOAuth,
				Details: map[string]any{"provider": provider, "tenant": m.Tenant}}, email, factors))
		}
	}
	return out, nil
}

// entry describes one discovered organization: primary_required where it
// will not accept the factors already proven, or where joining it by email
// JIT needs a factor that verifies email and none does (a returning
// password: the exchange answers primary_required too, memberFor), and
// mfa_required where logging in would then ask for a second factor.
func (s *Service) entry(org *organization.Organization, m Membership, email string, factors []session.Factor) DiscoveredOrganization {
	d := DiscoveredOrganization{Organization: org, Membership: m}
	member := m.Member
	if member == nil {
		member = &organization.Member{} // not yet a member: only the organization's own rule applies
	}
	d.MFARequired = s.d.Sessions.PreviewMFA(org, member)
	// A known member's own exemption (break-glass) counts here as at login;
	// the zero Member of someone not yet a member has none.
	ok := false
	for _, f := range factors {
		ok = ok || org.AllowsAuthMethodFor(member, session.AuthMethod(f))
	}
	switch {
	case m.Type == EligibleByMail && !session.AnyVerifiesAddress(factors, email):
		d.PrimaryRequired = session.PrimaryRequiredOf(org, session.AddressMethods...)
	case !ok:
		d.PrimaryRequired = &session.PrimaryRequired{AllowedAuthMethods: org.AllowedAuthMethods}
	}
	return d
}

func publicErr(err error, context string) error {
	var ae *apierr.Error
	if err == nil || errors.As(err, &ae) {
		return err
	}
	return fmt.Errorf("discovery: %s: %w", context, err)
}
