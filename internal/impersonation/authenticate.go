package impersonation

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

type authenticateRequest struct {
	ImpersonationToken string `json:"impersonation_token"`
	// SessionDurationMinutes is not sent by the SDKs (the session lasts
	// session.ImpersonatedMaxMinutes); a shorter one is honoured, a longer
	// one capped.
	SessionDurationMinutes *int `json:"session_duration_minutes"`
}

// AuthParams is a redemption.
type AuthParams struct {
	Project         *project.Project
	ClientIP        string // the address rate limits count
	Token           string
	DurationMinutes *int
	Actor           string // "sdk" or "backend", for the audit log
}

// handler serves b2b/impersonation/authenticate on one face.
func (s *Service) handler(actor string) httpapi.HandlerFunc {
	return func(r *http.Request) (any, error) {
		var req authenticateRequest
		if err := httpapi.Decode(r, &req); err != nil {
			return nil, err
		}
		// B2BImpersonationAuthenticateResponse has no primary_required.
		return session.Declaring(session.DeclaresOrganizationID | session.DeclaresIntermediate)(s.Authenticate(r.Context(),
			AuthParams{Project: project.CallerFrom(r.Context()).Project, ClientIP: httpapi.ClientIP(r),
				Token: req.ImpersonationToken, DurationMinutes: req.SessionDurationMinutes, Actor: actor}))
	}
}

// spent is what a redeemed token names.
type spent struct {
	tokenID, orgID, memberID, impersonatorID, impersonatorEmail string
}

// Authenticate redeems a token for a session of its member, always a
// session (never an IST): see the package comment.
func (s *Service) Authenticate(ctx context.Context, p AuthParams) (*session.AuthResponse, error) {
	if err := httpapi.Required("impersonation_token", p.Token); err != nil {
		return nil, err
	}
	duration := session.ImpersonatedMaxMinutes
	if p.DurationMinutes != nil && *p.DurationMinutes != 0 {
		// Validated as any duration; Complete caps it.
		d, err := session.DurationMinutes(ctx, p.Project, p.DurationMinutes)
		if err != nil {
			return nil, err
		}
		duration = d
	}
	attempt, err := s.d.Limiter.Reserve(ctx, ratelimit.For(RedeemPerIP, p.Project.ID+"|"+p.ClientIP))
	if err != nil {
		return nil, err
	}
	var resp *session.AuthResponse
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		t, err := s.spend(ctx, q, p.Project.ID, p.Token)
		if err != nil {
			return err
		}
		org, mem, err := s.activeMember(ctx, q, p.Project.ID, t.orgID, t.memberID)
		if err != nil {
			return err // rolls the spend back: the token lives on until it expires
		}
		resp, err = s.d.Sessions.Complete(ctx, q, session.CompleteParams{Project: p.Project, Organization: org, Member: mem,
			DurationMinutes: duration, PolicyMet: true,
			Factor: session.Factor{Type: session.ImpersonatedType, DeliveryMethod: session.ImpersonationDelivery,
				ImpersonatedFactor: &session.ImpersonatedFactor{ImpersonatorID: t.impersonatorID,
					ImpersonatorEmailAddress: t.impersonatorEmail}}})
		if err != nil {
			return err
		}
		ip, ua := httpapi.Client(ctx)
		return s.d.Audit.RecordIn(ctx, q, audit.Event{ProjectID: p.Project.ID, Type: audit.MemberImpersonated,
			Method: "impersonation", OrganizationID: org.OrganizationID, MemberID: mem.MemberID, Actor: p.Actor,
			IP: ip, UserAgent: ua, RequestID: httpapi.RequestID(ctx),
			Details: map[string]any{"impersonator_id": t.impersonatorID, "impersonator_email_address": t.impersonatorEmail,
				"impersonation_token_id": t.tokenID, "member_session_id": resp.MemberSession.MemberSessionID}})
	})
	if err = attempt.Settle(ctx, err, ratelimit.FailureOf(apierr.UnableToAuthImpersonationToken)); err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) {
			return nil, err
		}
		return nil, fmt.Errorf("impersonation: authenticate: %w", err)
	}
	return resp, nil
}

// spend marks the token used, in one conditional statement that also
// checks it is this project's, unused and unexpired: of two concurrent
// redemptions exactly one finds the row. Unknown, spent and expired
// tokens are one error, so a caller learns nothing about which it was.
func (s *Service) spend(ctx context.Context, q store.Querier, projectID, token string) (spent, error) {
	var t spent
	now := store.Millis(s.d.Clock.Now())
	err := q.QueryRowContext(ctx, `UPDATE impersonation_tokens SET used_at = $1
		WHERE token_hash = $2 AND project_id = $3 AND used_at IS NULL AND expires_at > $1
		RETURNING token_id, organization_id, member_id, impersonator_id, impersonator_email`,
		now, ids.Hash(token), projectID).Scan(&t.tokenID, &t.orgID, &t.memberID, &t.impersonatorID, &t.impersonatorEmail)
	if err != nil {
		if err = store.MapError(err); errors.Is(err, store.ErrNotFound) {
			return spent{}, apierr.Wrap(apierr.UnableToAuthImpersonationToken, err)
		}
		return spent{}, fmt.Errorf("impersonation: spend token: %w", err)
	}
	return t, nil
}
