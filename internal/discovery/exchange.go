package discovery

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/displaytext"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Who is the person asking: an IST (discovery) or a live session.
type Who struct {
	IST          string
	SessionToken string
	SessionJWT   string
	// ClientIP is the caller's address, under which a failed session
	// check (session.Service.Check) or a wrong IST
	// (session.IntermediateFailuresPerIP) counts.
	ClientIP string
}

// List answers b2b/discovery/organizations for an IST (not consumed) or a
// session (the session member's email).
//
// The address's other organizations, and its member records there, are
// listed only to a caller who proved the address: a discovery IST (its
// flow proved it), or a session or organization IST with a factor that
// proves it (session.Factor.ProvesAddress) or would carry into another
// organization (session.Factor.Carries, what SessionExchange moves). An
// SSO login, or an OAuth login whose provider did not verify the address,
// speaks for that organization only, so such a caller sees its own
// organization.
func (s *Service) List(ctx context.Context, p *project.Project, who Who) (*Response, error) {
	var email, own string
	var factors []session.Factor
	switch {
	case who.IST != "":
		in, err := s.d.Sessions.PeekIntermediate(ctx, p, who.ClientIP, who.IST)
		if err != nil {
			return nil, err
		}
		email, factors, own = in.Email, in.Factors, in.OrganizationID
	case who.SessionToken != "" || who.SessionJWT != "":
		sr, err := s.d.Sessions.Check(ctx, p, who.ClientIP, session.Credential{Token: who.SessionToken, JWT: who.SessionJWT}, nil)
		if err != nil {
			return nil, err
		}
		email, factors, own = sr.Member.EmailAddress, sr.MemberSession.AuthenticationFactors, sr.MemberSession.OrganizationID
	default:
		return nil, apierr.New(apierr.IntermediateSessionNotFound).WithMessage("An intermediate_session_token or a session is required.")
	}
	orgs, err := s.list(ctx, s.d.DB.Read(), p, email, factors)
	if err != nil {
		return nil, publicErr(err, "list")
	}
	if own != "" && !session.AnyProvesAddress(factors, email) && !session.AnyCarries(factors, email) {
		orgs = slices.DeleteFunc(orgs, func(o DiscoveredOrganization) bool { return o.Organization.OrganizationID != own })
	}
	return &Response{IntermediateSessionToken: who.IST, EmailAddress: email, DiscoveredOrganizations: orgs}, nil
}

// claimedElsewhere refuses when the email's domain is claimed
// (claimed_email_domains, set by the customer's backend) by an
// organization other than target ("" = a new organization): the claim
// keeps the domain's people out of every organization but its claimant.
func (s *Service) claimedElsewhere(ctx context.Context, q store.Querier, p *project.Project, email, target string) error {
	claimed, err := s.d.Orgs.ClaimedByAnother(ctx, q, p.ID, emailaddr.Domain(email), target)
	if err != nil {
		return err
	}
	if claimed {
		return apierr.New(apierr.EmailDomainIsClaimed)
	}
	return nil
}

// complete ends a discovery step for member m of org with the IST's
// factors; a session it starts gets claims (session.ClaimsField).
func (s *Service) complete(ctx context.Context, q store.Querier, p *project.Project, org *organization.Organization,
	m *organization.Member, factors []session.Factor, duration int, claims map[string]any) (*session.AuthResponse, error) {
	if len(factors) == 0 {
		// An IST that carries no factor (sessions/exchange answers one with
		// primary_required when no factor of the session carries over):
		// the member still has to log in here, and nothing was proven.
		return s.d.Sessions.RequirePrimary(ctx, q, session.CompleteParams{Project: p, Organization: org, Member: m})
	}
	// The address is verified here, and proven to other organizations only
	// by a factor they can rely on: an IST of this organization may hold
	// only its own SSO identity provider's assertion (an SSO login that
	// needs MFA), which its admin runs (MarkEmailAsserted), and must not
	// let it vouch for a domain in discovery.
	mark := s.d.Orgs.MarkEmailAsserted
	if session.AnyProvesToOthers(factors, m.EmailAddress) {
		mark = s.d.Orgs.MarkEmailVerified
	}
	ended, err := mark(ctx, q, m)
	if err != nil {
		return nil, err
	}
	last := len(factors) - 1
	return s.d.Sessions.Complete(ctx, q, session.CompleteParams{Project: p, Organization: org, Member: m,
		DurationMinutes: duration, Prior: factors[:last], Factor: factors[last], MethodID: m.EmailID, CustomClaims: claims,
		SessionsEnded: ended})
}

// errUnverifiedJIT is memberFor's answer when email could join org by
// email JIT but no factor verifies the address (session.VerifiesAddress).
var errUnverifiedJIT = errors.New("discovery: email JIT without a factor that verifies the address")

// memberFor finds the member with email in org, or admits a new one by the
// organization's email rules. Proving the email was the IST's job.
//
// Joining by email JIT needs a factor that verified the address as it
// happened (the API family: JIT provisioning "without a method that
// provides email verification" gets member_authenticated false), not a
// returning password: then memberFor creates no member and answers
// errUnverifiedJIT. No member is created before that proof, unlike an
// organization's create (Create): a member created here would let the
// same password in at once through passwords/authenticate, which logs in
// any member whose password it is, so the organization's RESTRICTED email
// JIT would admit an address nobody verified.
func (s *Service) memberFor(ctx context.Context, q store.Querier, p *project.Project, org *organization.Organization, email string,
	factors []session.Factor) (*organization.Member, error) {
	m, err := s.d.Orgs.MemberByEmail(ctx, q, org.OrganizationID, email)
	switch {
	case err == nil:
		if m.Status == organization.StatusDeleted {
			return nil, apierr.New(apierr.InactiveMember)
		}
		return m, nil
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	byTenant, err := s.admitsOAuthTenant(ctx, q, org, factors)
	if err != nil {
		return nil, err
	}
	if !byTenant {
		if err := s.claimedElsewhere(ctx, q, p, email, org.OrganizationID); err != nil {
			return nil, err
		}
		if err := org.CheckEmailJIT(email); err != nil {
			return nil, err
		}
		if !session.AnyVerifiesAddress(factors, email) {
			return nil, errUnverifiedJIT
		}
	}
	m, _, err = s.d.Orgs.ProvisionMember(ctx, q, org, p.Env, organization.NewMember{Email: email, Status: organization.StatusActive})
	return m, err
}

// admitsOAuthTenant reports whether an OAuth factor proves a tenant the
// organization's OAuth tenant JIT admits and at which it is vouched for:
// what discovery offers (JoinableByOAuthTenant) is all it admits by tenant.
func (s *Service) admitsOAuthTenant(ctx context.Context, q store.Querier, org *organization.Organization, factors []session.Factor) (bool, error) {
	for _, f := range factors {
		if provider, of, ok := f.OAuth(); ok {
			_, ok, err := s.d.Orgs.AdmitsByOAuthTenant(ctx, q, org, provider, of.TenantIDs())
			if err != nil || ok {
				return ok, err
			}
		}
	}
	return false, nil
}

// ExchangeParams is an intermediate_sessions/exchange request.
type ExchangeParams struct {
	Project         *project.Project
	ClientIP        string
	IST             string
	OrganizationID  string
	DurationMinutes *int
	// CustomClaims are the new session's (session.ClaimsField).
	CustomClaims map[string]any
}

// Exchange logs a discovery IST into one organization.
//
// Joining by email JIT on a factor that did not verify the address (a
// returning password, errUnverifiedJIT) answers member_authenticated false
// with the same IST, unspent (the API family returns the token it was
// given), and primary_required listing the methods that verify it
// (session.AddressMethods the organization accepts). Logging in to the
// organization by one of them with that IST then admits the address by the
// organization's own JIT rule and carries the IST's factors.
func (s *Service) Exchange(ctx context.Context, x ExchangeParams) (*session.AuthResponse, error) {
	duration, err := session.DurationMinutes(ctx, x.Project, x.DurationMinutes)
	if err != nil {
		return nil, err
	}
	// Counted as every other look at an IST is (GuardUnguessable, the one
	// rule of session.IntermediateFailuresPerIP): only a wrong IST counts,
	// and a correct one always passes, so wrong ISTs from an address (on
	// any IST route) never refuse its people's own exchanges.
	var out *session.AuthResponse
	var unverified *organization.Organization
	err = s.d.Limiter.GuardUnguessable(ctx, func() error {
		return s.d.DB.Tx(ctx, func(q store.Querier) error {
			unverified = nil
			org, err := s.d.Orgs.GetTx(ctx, q, x.Project.ID, x.OrganizationID)
			if err != nil {
				return organization.NotFound(err, apierr.OrganizationNotFound)
			}
			in, err := s.d.Sessions.RedeemIntermediate(ctx, q, x.Project, x.IST)
			if err != nil {
				return err
			}
			if in.OrganizationID != "" && in.OrganizationID != org.OrganizationID {
				return apierr.New(apierr.IntermediateSessionNotFound).WithMessage("This intermediate session belongs to another organization.")
			}
			m, err := s.memberFor(ctx, q, x.Project, org, in.Email, in.Factors)
			if errors.Is(err, errUnverifiedJIT) {
				unverified = org // the error rolls the redemption back: the IST stays usable
			}
			if err != nil {
				return err
			}
			out, err = s.complete(ctx, q, x.Project, org, m, in.Factors, duration, x.CustomClaims)
			return err
		})
	}, ratelimit.FailureOf(apierr.IntermediateSessionNotFound), ratelimit.For(ExchangesPerIP, x.Project.ID+"|"+x.ClientIP))
	if unverified != nil && errors.Is(err, errUnverifiedJIT) {
		out, err = &session.AuthResponse{SessionResponse: session.SessionResponse{Organization: unverified},
			OrganizationID: unverified.OrganizationID, IntermediateSessionToken: x.IST,
			PrimaryRequired: session.PrimaryRequiredOf(unverified, session.AddressMethods...)}, nil
	}
	return out, publicErr(err, "exchange")
}

// CreateParams is an organizations/create request.
type CreateParams struct {
	Project *project.Project
	// ClientIP is the caller's address, under which a wrong IST counts
	// (session.IntermediateFailuresPerIP).
	ClientIP        string
	IST             string
	DurationMinutes *int
	Settings        organization.Settings
	// CustomClaims are the new session's (session.ClaimsField).
	CustomClaims map[string]any
}

// Create makes an organization for the IST's email, with that person as
// its first (admin) member, and logs them in.
//
// When no factor of the IST verified the address as it happened (a
// returning password, session.VerifiesAddress), the API family answers
// member_authenticated false and primary_required: the organization and
// its member are created all the same (the member is the only way into an
// organization whose email JIT may be off, and the API family's answer
// names them), the address stays unverified, and the login completes when
// the member logs in to it by one of session.AddressMethods with the IST
// answered.
func (s *Service) Create(ctx context.Context, c CreateParams) (*session.AuthResponse, error) {
	if !c.Project.CreateOrganizationEnabled {
		return nil, apierr.New(apierr.CreateOrganizationDisabled)
	}
	duration, err := session.DurationMinutes(ctx, c.Project, c.DurationMinutes)
	if err != nil {
		return nil, err
	}
	in, err := s.d.Sessions.PeekIntermediate(ctx, c.Project, c.ClientIP, c.IST)
	if err != nil {
		return nil, err
	}
	if in.OrganizationID != "" {
		return nil, apierr.New(apierr.IntermediateSessionNotFound).WithMessage("Only a discovery intermediate session can create an organization.")
	}
	if err := s.claimedElsewhere(ctx, s.d.DB.Read(), c.Project, in.Email, ""); err != nil {
		return nil, err
	}
	set := c.Settings
	if set.Name == nil || displaytext.Blank(*set.Name) {
		name := defaultName(in.Email)
		set.Name = &name
	}
	var out *session.AuthResponse
	// The organization is created in the login's transaction: a login that
	// fails, races or is abandoned by its client leaves no organization
	// behind holding the slug.
	login := func(q store.Querier, set organization.Settings) error {
		in, err := s.d.Sessions.RedeemIntermediate(ctx, q, c.Project, c.IST)
		if err != nil {
			return err
		}
		org, err := s.d.Orgs.CreateIn(ctx, q, c.Project.ID, c.Project.Env, set)
		if err != nil {
			return err
		}
		// The creator administers the new organization: stytch_admin,
		// assigned directly, as the API family does.
		m, err := s.d.Orgs.CreateMember(ctx, q, org, c.Project.Env, organization.NewMember{Email: in.Email,
			Status: organization.StatusActive, Roles: []string{organization.AdminRole}})
		if err != nil {
			return err
		}
		if !session.AnyVerifiesAddress(in.Factors, in.Email) {
			// A returning password: the organization and its admin exist
			// (as the API family creates them), but the address is not
			// marked verified and the login must still verify it, by a
			// method of primary_required with the IST answered here.
			out, err = s.d.Sessions.RequirePrimary(ctx, q, session.CompleteParams{Project: c.Project, Organization: org,
				Member: m, Prior: in.Factors}, session.AddressMethods...)
			return err
		}
		out, err = s.complete(ctx, q, c.Project, org, m, in.Factors, duration, c.CustomClaims)
		return err
	}
	err = withFreeSlug(set, func(set organization.Settings) error {
		return s.d.DB.Tx(ctx, func(q store.Querier) error { return login(q, set) })
	})
	if err != nil {
		return nil, publicErr(err, "create")
	}
	return out, nil
}

// withFreeSlug runs create, a whole transaction (on PostgreSQL the slug's
// conflict aborts it), with set; when the slug was derived (not chosen)
// and is taken, it runs it again with a random suffix.
func withFreeSlug(set organization.Settings, create func(organization.Settings) error) error {
	chosen := set.Slug != nil
	base := organization.SlugFromName(*set.Name)
	if len(base) < 2 {
		base = "org"
	}
	for attempt := 0; ; attempt++ {
		if !chosen {
			slug := base
			if attempt > 0 {
				slug = fmt.Sprintf("%s-%s", base, strings.ToLower(ids.Token()[:6]))
			}
			set.Slug = &slug
		}
		err := create(set)
		if apierr.Is(err, apierr.OrganizationSlugUsed) && !chosen && attempt < 5 {
			continue
		}
		return err
	}
}

// defaultName names a new organization after the email's domain
// ("acme.com" -> "Acme"), or the person for shared mail providers
// (emailaddr.IsCommonDomain).
func defaultName(email string) string {
	local, domain, _ := strings.Cut(email, "@")
	label, _, _ := strings.Cut(domain, ".")
	if emailaddr.IsCommonDomain(domain) || label == "" {
		return local + "'s Organization"
	}
	return strings.ToUpper(label[:1]) + label[1:]
}

// SessionExchangeParams is a sessions/exchange request.
type SessionExchangeParams struct {
	Project    *project.Project
	Credential session.Credential
	// ClientIP is the caller's address, under which a failed session
	// check counts (session.Service.Check).
	ClientIP        string
	OrganizationID  string
	DurationMinutes *int
	// CustomClaims are the new session's (session.ClaimsField). The old
	// session's are not copied: the new session is another
	// organization's, and the backend moving the member says what it holds.
	CustomClaims map[string]any
}

// SessionExchange moves a logged-in member to another organization of the
// same email; the old session ends once the new one exists.
//
// Only the factors session.Factor.Carries accepts move: those that proved
// the address itself (an email link or code sent to it, or an OAuth login
// whose provider verified it), and the target organization's auth policy
// decides whether they suffice there. An SSO login, an OAuth login without
// that verification, or a password speaks for the organization it
// happened in: an organization's admin runs its SSO identity provider and
// may admit an OAuth tenant's unverified addresses, so carrying those
// factors would let that admin log in as a member of any other
// organization with the same address. Without a factor that carries, an
// existing member gets an IST and primary_required (the current session
// stays).
//
// It never creates a member (sessionExchangeMember): the API family's
// exchange accepts an invite but does not JIT-provision by email domain or
// OAuth tenant; joining that way is discovery's intermediate session
// exchange (Exchange), which only offers organizations where the domain
// or tenant is vouched for.
func (s *Service) SessionExchange(ctx context.Context, x SessionExchangeParams) (*session.AuthResponse, error) {
	duration, err := session.DurationMinutes(ctx, x.Project, x.DurationMinutes)
	if err != nil {
		return nil, err
	}
	cur, err := s.d.Sessions.Check(ctx, x.Project, x.ClientIP, x.Credential, nil)
	if err != nil {
		return nil, err
	}
	email := cur.Member.EmailAddress
	carried := []session.Factor{}
	for _, f := range cur.MemberSession.AuthenticationFactors {
		if f.Carries(email) {
			carried = append(carried, f)
		}
	}
	var out *session.AuthResponse
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		org, err := s.d.Orgs.GetTx(ctx, q, x.Project.ID, x.OrganizationID)
		if err != nil {
			return organization.NotFound(err, apierr.OrganizationNotFound)
		}
		m, err := s.sessionExchangeMember(ctx, q, org, email)
		if err != nil {
			return err
		}
		if len(carried) == 0 {
			out, err = s.d.Sessions.RequirePrimary(ctx, q, session.CompleteParams{Project: x.Project, Organization: org, Member: m})
			return err
		}
		out, err = s.complete(ctx, q, x.Project, org, m, carried, duration, x.CustomClaims)
		if err != nil {
			return err
		}
		// The check above may have been answered from memory; the
		// database decides whether the session still stands to hand its
		// factors on (an IST keeps it, a new session ends it).
		if out.MemberSession == nil {
			return s.d.Sessions.ConfirmHeld(ctx, q, x.Project.ID, cur.MemberSession.MemberSessionID)
		}
		return s.d.Sessions.EndHeld(ctx, q, x.Project.ID, cur.MemberSession.MemberSessionID)
	})
	return out, publicErr(err, "session exchange")
}

// sessionExchangeMember finds the member with email in org for a session
// exchange: an existing one (active, invited or pending; a deleted one is
// refused as memberFor refuses it), never a new one. A non-member gets the
// same answer whatever the session's factors, so the answer says nothing
// about the organization's JIT rules.
func (s *Service) sessionExchangeMember(ctx context.Context, q store.Querier, org *organization.Organization,
	email string) (*organization.Member, error) {
	m, err := s.d.Orgs.MemberByEmail(ctx, q, org.OrganizationID, email)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, apierr.New(apierr.MemberNotFound).WithMessage(
			"This session's member is not a member of that organization: sessions/exchange moves only to an organization " +
				"the member belongs to or is invited to. To join one, log in to it directly or through discovery.")
	case err != nil:
		return nil, err
	case m.Status == organization.StatusDeleted:
		return nil, apierr.New(apierr.InactiveMember)
	}
	return m, nil
}
