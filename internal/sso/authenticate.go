package sso

import (
	"errors"
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

type authenticateRequest struct {
	SSOToken                 string `json:"sso_token"`
	PKCECodeVerifier         string `json:"pkce_code_verifier"`
	SessionDurationMinutes   *int   `json:"session_duration_minutes"`
	IntermediateSessionToken string `json:"intermediate_session_token"`
	session.Held
	session.ClaimsField
	httpapi.EnglishOnly
}

// Authenticate handles b2b/sso/authenticate: the SSO token (with the PKCE
// verifier when the start had a challenge) becomes a session, or an IST
// when the organization wants MFA or another primary method, through the
// same completion seam as every method.
func (h Handlers) Authenticate(r *http.Request) (any, error) {
	var req authenticateRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	if err := httpapi.Required("sso_token", req.SSOToken); err != nil {
		return nil, err
	}
	claims, err := req.Claims(r)
	if err != nil {
		return nil, err
	}
	s := h.s
	ctx := r.Context()
	p := project.CallerFrom(ctx).Project
	duration, err := session.DurationMinutes(r.Context(), p, req.SessionDurationMinutes)
	if err != nil {
		return nil, err
	}
	from, err := s.d.Sessions.Held(ctx, p, req.Held)
	if err != nil {
		return nil, err
	}
	t, err := s.d.Flows.Redeem(ctx, flowtoken.Redeem{Kind: kindToken, Token: req.SSOToken, ProjectID: p.ID,
		Verifier: req.PKCECodeVerifier, LimitKey: p.ID + "|" + httpapi.ClientIP(r)})
	if errors.Is(err, flowtoken.ErrInvalid) {
		return nil, apierr.Wrap(apierr.SSOTokenNotFound, err)
	}
	if err != nil {
		return nil, err
	}
	var td tokenData
	if err := t.Decode(&td); err != nil {
		return nil, err
	}
	var resp *session.AuthResponse
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		org, err := s.d.Orgs.GetIn(ctx, q, p.ID, td.OrganizationID)
		if err != nil {
			return apierr.Wrap(apierr.SSOTokenNotFound, err)
		}
		m, err := s.d.Orgs.Member(ctx, q, p.ID, td.MemberID)
		if err != nil {
			return apierr.Wrap(apierr.SSOTokenNotFound, err)
		}
		if m.Status != organization.StatusActive {
			return apierr.New(apierr.InactiveMember)
		}
		prior, err := s.d.Sessions.PriorFactors(ctx, q, p, req.IntermediateSessionToken, org.OrganizationID, m.MemberID, m.EmailAddress)
		if err != nil {
			return err
		}
		f := &session.SSOFactor{ID: td.RegistrationID, ProviderID: td.ConnectionID, ExternalID: td.ExternalID}
		factor := session.Factor{Type: "sso", DeliveryMethod: "sso_" + td.Kind}
		if td.Kind == KindSAML {
			factor.SAMLSSOFactor = f
		} else {
			factor.OIDCSSOFactor = f
		}
		resp, err = s.d.Sessions.Complete(ctx, q, session.CompleteParams{Project: p, Organization: org, Member: m,
			Factor: factor, DurationMinutes: duration, Prior: prior, From: from, CustomClaims: claims})
		return err
	})
	if err != nil {
		return nil, err
	}
	return &AuthenticateResponse{AuthResponse: resp, ResetSession: td.ResetSessions}, nil
}

// DiscoverConnections handles SDK GET b2b/sso/discovery/connections as
// the vendor documents it: the active connections of the organizations
// the address is a member of or, only when those have none, the ones it
// could join through by SSO JIT provisioning (discover.go). The widget
// starts the only one, or offers a menu, or asks for the organization's
// slug when there is none: a connection listed must be one whose login
// can succeed, not one that ends on an error after the identity provider.
func (h Handlers) DiscoverConnections(r *http.Request) (any, error) {
	p := project.CallerFrom(r.Context()).Project
	email, err := emailaddr.Normalize(r.URL.Query().Get("email_address"))
	if err != nil {
		return nil, err
	}
	ctx, q := r.Context(), h.s.d.DB.Read()
	conns, err := h.s.memberConnections(ctx, q, p.ID, email)
	if err == nil && len(conns) == 0 {
		conns, err = h.s.jitConnections(ctx, q, p.ID, email)
	}
	if err != nil {
		return nil, err
	}
	return &DiscoveryResponse{Connections: conns}, nil
}
