package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// Held is the session a caller may present with a login
// (session_token or session_jwt in the body, as the backend SDKs send
// them): the new factor then joins that session's factors instead of
// starting a separate session. Request types embed it.
type Held struct {
	SessionToken string `json:"session_token"`
	SessionJWT   string `json:"session_jwt"`
}

// Held checks a presented session before a login spends its one-time
// secret, so a stale session fails the call without using up the link,
// code or token. Failures count against the client's address (Check). No
// session presented is nil.
func (s *Service) Held(ctx context.Context, p *project.Project, h Held) (*SessionResponse, error) {
	if h.SessionToken == "" && h.SessionJWT == "" {
		return nil, nil
	}
	// Both at once is refused by Authenticate (TooManyArguments).
	return s.Check(ctx, p, httpapi.ClientIPFrom(ctx), Credential{Token: h.SessionToken, JWT: h.SessionJWT}, nil)
}

// EndHeld ends, inside q, a session the caller held, in the transaction
// that creates its successor: a login or MFA check that steps it up
// (CompleteParams.From), sessions/exchange. The session was checked before
// q began, from memory, which on a replica may be up to a second behind a
// revocation made on another (hotCache): so the database decides here.
// Only a session still live by the clock (not revoked, not expired) is
// ended; any other is refused as session_not_found, which rolls q back
// with nothing issued. On PostgreSQL the UPDATE waits for a concurrent
// revocation of the row to commit and then finds it revoked.
func (s *Service) EndHeld(ctx context.Context, q store.Querier, projectID, sessionID string) error {
	now := store.Millis(s.clock.Now())
	res, err := q.ExecContext(ctx, `UPDATE member_sessions SET revoked_at = $1 WHERE project_id = $2
		AND member_session_id = $3 AND revoked_at IS NULL AND expires_at > $1`, now, projectID, sessionID)
	if err != nil {
		return fmt.Errorf("session: end held session: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("session: end held session: %w", err)
	}
	if n == 0 {
		return apierr.New(apierr.SessionNotFound)
	}
	s.jwts.drop(sessionID)
	return nil
}

// ConfirmHeld is EndHeld for an answer that leaves the held session as it
// was but carries its factors on (an IST): it refuses, inside q, a session
// the database no longer holds live.
func (s *Service) ConfirmHeld(ctx context.Context, q store.Querier, projectID, sessionID string) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM member_sessions WHERE project_id = $1 AND member_session_id = $2
		AND revoked_at IS NULL AND expires_at > $3`, projectID, sessionID, store.Millis(s.clock.Now())).Scan(&one)
	if errors.Is(store.MapError(err), store.ErrNotFound) {
		return apierr.New(apierr.SessionNotFound)
	}
	if err != nil {
		return fmt.Errorf("session: confirm held session: %w", err)
	}
	return nil
}

// stepUp folds the held session into p: the session must be the same
// member's (a member id names one organization's member, so that is the
// same organization too), at the same address, and its factors come
// before the new one, keeping one entry per kind (the new one replaces an
// earlier one of its kind, with its later time).
//
// The session was checked before the login's transaction, so the member
// it names was read then; the login may have read the member later, after
// an address change ended that session. Its factors were proven for the
// old address and must not start a session for the new one.
func stepUp(p *CompleteParams) error {
	from := p.From
	if from.Member.MemberID != p.Member.MemberID {
		return apierr.New(apierr.UnauthorizedAction).WithMessage(
			"The session belongs to another member or organization than this login.")
	}
	if from.Member.EmailAddress != p.Member.EmailAddress {
		return addressChanged()
	}
	if len(p.Prior) > 0 {
		return apierr.New(apierr.TooManySessionArguments).WithMessage(
			"Send an intermediate_session_token or a session, not both.")
	}
	for _, old := range from.MemberSession.AuthenticationFactors {
		if old.Type != p.Factor.Type || old.DeliveryMethod != p.Factor.DeliveryMethod {
			p.Prior = append(p.Prior, old)
		}
	}
	return nil
}
