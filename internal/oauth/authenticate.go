package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// pendingLogin is what the token ticket carries from the callback to
// authenticate: who logged in at which provider, for which organization
// ("" in discovery), and the provider's tokens, sealed.
type pendingLogin struct {
	Provider       string             `json:"provider"`
	OrganizationID string             `json:"organization_id,omitempty"`
	Identity       providers.Identity `json:"identity"`
	SealedTokens   string             `json:"tokens"`
}

func tokensAAD(projectID string) string { return "oauth-tokens:" + projectID }

func (m *Module) sealTokens(projectID string, t providers.Tokens) (string, error) {
	if m.d.Box == nil {
		return "", errors.New("oauth: LATCHKEY_ENCRYPTION_KEY is not set")
	}
	b, err := json.Marshal(t)
	if err != nil {
		return "", fmt.Errorf("oauth: encode tokens: %w", err)
	}
	return m.d.Box.Seal(string(b), tokensAAD(projectID)), nil
}

func (m *Module) openTokens(projectID, sealed string) (providers.Tokens, error) {
	var t providers.Tokens
	if sealed == "" || m.d.Box == nil {
		return t, nil
	}
	plain, err := m.d.Box.Open(sealed, tokensAAD(projectID))
	if err != nil {
		return t, fmt.Errorf("oauth: open tokens: %w", err)
	}
	if err := json.Unmarshal([]byte(plain), &t); err != nil {
		return t, fmt.Errorf("oauth: decode tokens: %w", err)
	}
	return t, nil
}

// ProviderValues are the provider's tokens as authenticate returns them.
type ProviderValues struct {
	AccessToken  string   `json:"access_token"`
	RefreshToken string   `json:"refresh_token"`
	IDToken      string   `json:"id_token"`
	Scopes       []string `json:"scopes"`
	ExpiresAt    *string  `json:"expires_at"`
}

func providerValues(t providers.Tokens) ProviderValues {
	v := ProviderValues{AccessToken: t.AccessToken, RefreshToken: t.RefreshToken, IDToken: t.IDToken, Scopes: t.Scopes}
	if v.Scopes == nil {
		v.Scopes = []string{}
	}
	if !t.ExpiresAt.IsZero() {
		s := t.ExpiresAt.UTC().Format(time.RFC3339)
		v.ExpiresAt = &s
	}
	return v
}

// AuthResponse answers b2b/oauth/authenticate: the common answer plus the
// OAuth fields of the API family.
type AuthResponse struct {
	*session.AuthResponse
	ProviderSubject string         `json:"provider_subject"`
	ProviderType    string         `json:"provider_type"`
	ProviderValues  ProviderValues `json:"provider_values"`
	ResetSessions   bool           `json:"reset_sessions"`
}

type authRequest struct {
	OAuthToken             string `json:"oauth_token"`
	SessionDurationMinutes *int   `json:"session_duration_minutes"`
	PKCECodeVerifier       string `json:"pkce_code_verifier"`
	IntermediateSession    string `json:"intermediate_session_token"`
	session.Held
	session.ClaimsField
	// locale is refused when the codes are not written in it, and is the
	// language of the MFA code the login may text by itself.
	httpapi.RequestLocale
}

// handleAuthenticate serves POST b2b/oauth/authenticate on both faces.
func (m *Module) handleAuthenticate(r *http.Request) (any, error) {
	var req authRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	claims, err := req.Claims(r)
	if err != nil {
		return nil, err
	}
	return m.Authenticate(r.Context(), project.CallerFrom(r.Context()).Project, httpapi.ClientIP(r), req, claims)
}

// redeem spends a token ticket of kind.
func (m *Module) redeem(ctx context.Context, p *project.Project, kind flowtoken.Kind, token, verifier, ip string) (*pendingLogin, error) {
	if token == "" {
		return nil, apierr.New(apierr.OAuthTokenNotFound)
	}
	t, err := m.d.Flows.Redeem(ctx, flowtoken.Redeem{Kind: kind, ProjectID: p.ID, Token: token, Verifier: verifier,
		LimitKey: p.ID + "|" + ip})
	if err != nil {
		if errors.Is(err, flowtoken.ErrInvalid) {
			return nil, apierr.Wrap(apierr.OAuthTokenNotFound, err)
		}
		return nil, err
	}
	var pl pendingLogin
	if err := t.Decode(&pl); err != nil {
		return nil, err
	}
	return &pl, nil
}

// Authenticate redeems an organization-flow OAuth token: it finds or
// admits the member, records the OAuth registration, and completes the
// login through session.Complete. A session it starts gets claims
// (session.ClaimsField).
func (m *Module) Authenticate(ctx context.Context, p *project.Project, ip string, req authRequest,
	claims map[string]any) (*AuthResponse, error) {
	ctx = req.In(ctx) // the language of an MFA code the login sends
	duration, err := session.DurationMinutes(ctx, p, req.SessionDurationMinutes)
	if err != nil {
		return nil, err
	}
	from, err := m.d.Sessions.Held(ctx, p, req.Held)
	if err != nil {
		return nil, err
	}
	pl, err := m.redeem(ctx, p, kindToken, req.OAuthToken, req.PKCECodeVerifier, ip)
	if err != nil {
		return nil, err
	}
	tokens, err := m.openTokens(p.ID, pl.SealedTokens)
	if err != nil {
		return nil, err
	}
	id := pl.Identity
	var out *session.AuthResponse
	err = m.d.DB.Tx(ctx, func(q store.Querier) error {
		org, err := m.d.Orgs.GetTx(ctx, q, p.ID, pl.OrganizationID)
		if err != nil {
			return organization.NotFound(err, apierr.OrganizationNotFound)
		}
		member, proven, err := m.memberFor(ctx, q, p, org, &id)
		if err != nil {
			return err
		}
		reg, err := m.saveRegistration(ctx, q, p, member, &id, pl.SealedTokens, proven)
		if err != nil {
			return err
		}
		// After the registration is recorded as proving the address: a
		// first proof ends the member's registrations that did not
		// (AddressVerified), and this one must not be among them.
		ended := false
		if proven {
			if ended, err = m.d.Orgs.MarkEmailVerified(ctx, q, member); err != nil {
				return err
			}
		}
		// Reload so the answer shows the registration just recorded.
		if member, err = m.d.Orgs.Member(ctx, q, p.ID, member.MemberID); err != nil {
			return err
		}
		prior, err := m.d.Sessions.PriorFactors(ctx, q, p, req.IntermediateSession, org.OrganizationID, member.MemberID, member.EmailAddress)
		if err != nil {
			return err
		}
		out, err = m.d.Sessions.Complete(ctx, q, session.CompleteParams{Project: p, Organization: org, Member: member,
			DurationMinutes: duration, MethodID: reg, Prior: prior, From: from, Factor: Factor(&id, reg, member.EmailID),
			CustomClaims: claims, SessionsEnded: ended})
		return err
	})
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) {
			return nil, err
		}
		return nil, fmt.Errorf("oauth: authenticate: %w", err)
	}
	return &AuthResponse{AuthResponse: out, ProviderSubject: id.Subject, ProviderType: pl.Provider,
		ProviderValues: providerValues(tokens), ResetSessions: out.SessionsReset()}, nil
}

// Factor is the session factor of an OAuth login: type oauth, delivery
// method oauth_{provider}, and {provider}_oauth_factor naming the
// registration ("" in discovery, before any member exists). When the
// provider verified the account's address, the factor records it beside
// the wire object (session.Factor.WithVerifiedEmail), so that the login
// can later carry into another organization of that address.
func Factor(id *providers.Identity, registrationID, emailID string) session.Factor {
	of := &session.OAuthFactor{ID: registrationID, EmailID: emailID, ProviderSubject: id.Subject}
	tenants := id.TenantIDs()
	if id.Provider == providers.GitHub {
		of.ProviderTenantIDs = tenants
	} else if len(tenants) > 0 {
		of.ProviderTenantID = tenants[0]
	}
	f := session.Factor{Type: "oauth", DeliveryMethod: "oauth_" + id.Provider}
	if id.EmailVerified && id.Email != "" {
		f = f.WithVerifiedEmail(id.Email)
	}
	switch id.Provider {
	case providers.Google:
		f.GoogleOAuthFactor = of
	case providers.Microsoft:
		f.MicrosoftOAuthFactor = of
	case providers.HubSpot:
		f.HubspotOAuthFactor = of
	case providers.Slack:
		f.SlackOAuthFactor = of
	case providers.GitHub:
		f.GithubOAuthFactor = of
	}
	return f
}

// isMember reports whether the identity already belongs to an active
// member of the organization (the callback then uses the login URL).
func (m *Module) isMember(ctx context.Context, p *project.Project, orgID, provider string, id *providers.Identity) bool {
	q := m.d.DB.Read()
	if reg, err := m.registeredMember(ctx, q, orgID, provider, id.Subject); err == nil {
		mem, err := m.d.Orgs.Member(ctx, q, p.ID, reg.memberID)
		return err == nil && mem.Status == organization.StatusActive
	}
	mem, err := m.d.Orgs.MemberByEmail(ctx, q, orgID, id.Email)
	return err == nil && mem.Status == organization.StatusActive
}

// memberFor finds the member the identity logs in as, or admits a new one:
//  1. the member who registered this provider account before;
//  2. the member with the identity's email, if the provider verified it
//     (an unverified address would let anyone claim any member);
//  3. a new member, by OAuth tenant JIT (the identity's tenant is allowed)
//     or by email JIT with a verified address.
//
// It also reports whether this login proves the member's address (proves);
// the caller then records the registration as proving it and marks the
// address verified, in that order.
//
// A registration that never proved the address (tenant JIT with an
// address the provider did not verify) opens its member only while nobody
// has proven the address: the account may have given someone else's
// address before its owner arrived. Once the owner proves it, the
// registration is deleted (AddressVerified); one the deletion missed (made
// before registrations recorded this, or the address verified by an email
// change) is refused here, unless this very login proves the address.
func (m *Module) memberFor(ctx context.Context, q store.Querier, p *project.Project, org *organization.Organization,
	id *providers.Identity) (*organization.Member, bool, error) {
	var mem *organization.Member
	reg, err := m.registeredMember(ctx, q, org.OrganizationID, id.Provider, id.Subject)
	switch {
	case err == nil:
		mem, err = m.d.Orgs.Member(ctx, q, p.ID, reg.memberID)
	case errors.Is(err, store.ErrNotFound):
		mem, err = m.d.Orgs.MemberByEmail(ctx, q, org.OrganizationID, id.Email)
		if err == nil && !id.EmailVerified {
			return nil, false, apierr.New(apierr.OAuthUnverifiedEmail)
		}
	}
	switch {
	case err == nil:
		if mem.Status == organization.StatusDeleted {
			return nil, false, apierr.New(apierr.InactiveMember)
		}
		ok := proves(id, mem)
		if reg != nil && !reg.emailVerified && mem.EmailAddressVerified && !ok {
			return nil, false, apierr.New(apierr.OAuthUnverifiedEmail).WithMessage(
				"This account was admitted with an email address its OAuth provider had not verified, and the address has since been verified another way.")
		}
		return mem, ok, nil
	case !errors.Is(err, store.ErrNotFound):
		return nil, false, err
	}
	if id.Email == "" {
		return nil, false, apierr.New(apierr.OAuthUnverifiedEmail).WithMessage("The OAuth provider shared no email address for this account.")
	}
	if _, ok := org.AllowsOAuthTenant(id.Provider, id.TenantIDs()); !ok {
		if !id.EmailVerified {
			return nil, false, apierr.New(apierr.OAuthUnverifiedEmail)
		}
		if err := org.CheckEmailJIT(id.Email); err != nil {
			return nil, false, err
		}
	}
	mem, _, err = m.d.Orgs.ProvisionMember(ctx, q, org, p.Env, organization.NewMember{Email: id.Email, Name: id.Name,
		Status: organization.StatusActive})
	if err != nil {
		return nil, false, err
	}
	return mem, proves(id, mem), nil
}

// proves reports whether the identity's provider verified the member's
// own address.
func proves(id *providers.Identity, mem *organization.Member) bool {
	return id.EmailVerified && id.Email != "" && id.Email == mem.EmailAddress
}

type discoveryRequest struct {
	DiscoveryOAuthToken string `json:"discovery_oauth_token"`
	PKCECodeVerifier    string `json:"pkce_code_verifier"`
}

// handleDiscoveryAuthenticate serves POST b2b/oauth/discovery/authenticate.
func (m *Module) handleDiscoveryAuthenticate(r *http.Request) (any, error) {
	var req discoveryRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	ctx, p := r.Context(), project.CallerFrom(r.Context()).Project
	pl, err := m.redeem(ctx, p, kindDiscovery, req.DiscoveryOAuthToken, req.PKCECodeVerifier, httpapi.ClientIP(r))
	if err != nil {
		return nil, err
	}
	if pl.Identity.Email == "" || !pl.Identity.EmailVerified {
		return nil, apierr.New(apierr.OAuthUnverifiedEmail)
	}
	res, err := m.d.Discovery.Discovered(ctx, p, pl.Identity.Email, Factor(&pl.Identity, "", ""))
	if err != nil {
		return nil, err
	}
	return discoveryAnswer(res, &pl.Identity), nil
}

// tenantsOf returns the identity's tenants as stored on a registration.
func tenantsOf(id *providers.Identity) []providers.Tenant {
	if id.Tenants == nil {
		return []providers.Tenant{}
	}
	return slices.Clone(id.Tenants)
}
