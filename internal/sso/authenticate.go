package sso

import (
	"context"
	"errors"
	"fmt"
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
	httpapi.RequestLocale
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
	ctx := req.In(r.Context()) // the language of an MFA code the login sends
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
		if err := s.checkTokenConnection(ctx, q, p.ID, td); err != nil {
			return err
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

// checkTokenConnection refuses a redeemed SSO token whose connection was
// deleted or stopped being active after the callback issued it, or whose
// registration is gone (the connection's deletion, or a later login of the
// member through it under another NameID or subject, which replaced it):
// an administrator who deletes or deactivates a compromised connection
// ends the logins it had started, and no session names a connection or a
// registration that is no longer there. The connection's row is shared
// until q ends (store.DB.ShareRow, after the organization's row was read
// and before Complete holds the member's: the order a deletion locks them
// in), so a deletion running at once waits for this login or is seen by it.
//
// A connection gone, or a registration gone, is the token's own
// sso_token_not_found, as a token that was never issued: nothing it names
// exists any more. A connection still there but not active answers as
// its callback and start would.
func (s *Service) checkTokenConnection(ctx context.Context, q store.Querier, projectID string, td tokenData) error {
	gone := func(err error, what string) error {
		return apierr.Wrap(apierr.SSOTokenNotFound, err).WithMessage("The SSO token can no longer be used: the " + what +
			" it was issued for has been deleted since. Please log in again.")
	}
	if err := s.d.DB.ShareRow(ctx, q, "sso_connections", "connection_id", td.ConnectionID); errors.Is(err, store.ErrNotFound) {
		return gone(err, "SSO connection")
	} else if err != nil {
		return err
	}
	c, err := scanConn(q.QueryRowContext(ctx, `SELECT `+connColumns+` FROM sso_connections
		WHERE connection_id = $1 AND project_id = $2 AND organization_id = $3`, td.ConnectionID, projectID, td.OrganizationID))
	if errors.Is(err, store.ErrNotFound) {
		return gone(err, "SSO connection")
	}
	if err != nil {
		return fmt.Errorf("sso: connection of token: %w", err)
	}
	if c.Status != StatusActive {
		if c.Kind == KindExternal {
			return apierr.New(apierr.ExternalConnectionNotActive)
		}
		return apierr.New(apierr.SSOConnectionNotActive)
	}
	var n int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM sso_registrations WHERE registration_id = $1
		AND connection_id = $2 AND member_id = $3`, td.RegistrationID, td.ConnectionID, td.MemberID).Scan(&n); err != nil {
		return fmt.Errorf("sso: registration of token: %w", err)
	}
	if n == 0 {
		return gone(errors.New("sso: registration of token gone"), "SSO registration")
	}
	return nil
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
