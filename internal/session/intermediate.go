package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// IntermediateLifetime is how long an IST lives (the SDK's IST cookie
// lasts as long).
const IntermediateLifetime = 10 * time.Minute

// Intermediate is a verified-but-not-yet-logged-in state (an IST). A
// discovery IST knows only the email; one for primary_required or MFA also
// names the organization and member.
type Intermediate struct {
	ID             string
	ProjectID      string
	Email          string
	OrganizationID string
	MemberID       string
	Factors        []Factor
	ExpiresAt      time.Time
}

// IssueIntermediate stores a new IST inside the caller's transaction and
// returns its opaque token (only the hash is stored).
func (s *Service) IssueIntermediate(ctx context.Context, q store.Querier, p *project.Project, in Intermediate) (string, error) {
	now := s.clock.Now().Truncate(time.Millisecond)
	token := ids.Token()
	factors, proofs, err := encodeFactors(in.Factors)
	if err != nil {
		return "", err
	}
	_, err = q.ExecContext(ctx, `INSERT INTO intermediate_sessions (intermediate_session_id, project_id, token_hash, email_address,
		organization_id, member_id, authentication_factors, factor_proofs, created_at, expires_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
		ids.New("intermediate-session", p.Env), p.ID, ids.Hash(token), in.Email, in.OrganizationID, in.MemberID, factors, proofs,
		store.Millis(now), store.Millis(now.Add(IntermediateLifetime)))
	if err != nil {
		return "", fmt.Errorf("session: issue ist: %w", err)
	}
	return token, nil
}

func (s *Service) loadIntermediate(ctx context.Context, q store.Querier, p *project.Project, token string) (*Intermediate, error) {
	if token == "" {
		return nil, apierr.New(apierr.IntermediateSessionNotFound)
	}
	var in Intermediate
	var factors, proofs string
	var exp int64
	var used *int64
	err := q.QueryRowContext(ctx, `SELECT intermediate_session_id, project_id, email_address, organization_id, member_id,
		authentication_factors, factor_proofs, expires_at, used_at FROM intermediate_sessions WHERE token_hash = $1 AND project_id = $2`,
		ids.Hash(token), p.ID).Scan(&in.ID, &in.ProjectID, &in.Email, &in.OrganizationID, &in.MemberID, &factors, &proofs, &exp, &used)
	if err = store.MapError(err); errors.Is(err, store.ErrNotFound) {
		return nil, apierr.Wrap(apierr.IntermediateSessionNotFound, err)
	}
	if err != nil {
		// The database's error, not an unknown token: answered as not
		// found, the widget would drop a login half done.
		return nil, fmt.Errorf("session: load intermediate session: %w", err)
	}
	in.ExpiresAt = store.Time(exp)
	if used != nil || !s.clock.Now().Before(in.ExpiresAt) {
		return nil, apierr.New(apierr.IntermediateSessionNotFound)
	}
	if in.Factors, err = decodeFactors(factors, proofs); err != nil {
		return nil, err
	}
	return &in, nil
}

// IntermediateFailuresPerIP bounds wrong ISTs presented from one client
// address to a project (keyed projectID|address), at every route that
// takes an IST from a client: those that only look at it
// (PeekIntermediate: the discovered organizations, creating an
// organization, every MFA call of a login in progress) and the discovery
// exchange that spends it (discovery.ExchangesPerIP is this rule), so a
// scanner cannot use one route as a free validity oracle while another
// counts. A correct IST gives its count back (Release), so only failures
// spend the allowance.
var IntermediateFailuresPerIP = ratelimit.Rule{Name: "ist_fail_ip", Limit: 100, Window: 10 * time.Minute,
	OnSuccess: ratelimit.Release, PerClientAddress: true}

// PeekIntermediate validates an IST without consuming it (listing
// discovered organizations, sending an MFA code), under
// IntermediateFailuresPerIP for clientIP. An IST is 256 bits, so the
// check runs first and a correct one always passes (GuardUnguessable):
// past the limit an address's wrong ISTs are answered with the refusal,
// which slows a scanner down without refusing a login in progress that
// shares its address. A spend that follows a peek (RedeemIntermediate)
// counts nothing more.
func (s *Service) PeekIntermediate(ctx context.Context, p *project.Project, clientIP, token string) (*Intermediate, error) {
	if s.limiter == nil {
		return s.loadIntermediate(ctx, s.db.Read(), p, token)
	}
	var in *Intermediate
	err := s.limiter.GuardUnguessable(ctx, func() error {
		var err error
		in, err = s.loadIntermediate(ctx, s.db.Read(), p, token)
		return err
	}, ratelimit.FailureOf(apierr.IntermediateSessionNotFound), ratelimit.For(IntermediateFailuresPerIP, p.ID+"|"+clientIP))
	if err != nil {
		return nil, err
	}
	return in, nil
}

// RedeemIntermediate consumes an IST inside the caller's transaction; the
// conditional UPDATE makes a second redemption fail even under concurrency.
//
// For an IST naming a member, the member's row is held before the spend
// (organization.LockMember), not only by the Complete that follows it: an
// address change updates the member's row and then spends the member's
// ISTs (ReleaseAddress), so on PostgreSQL a change landing between the
// spend and a later member lock would deadlock with the redemption, to be
// broken after deadlock_timeout and retried. A missing member is left to
// Complete.
func (s *Service) RedeemIntermediate(ctx context.Context, q store.Querier, p *project.Project, token string) (*Intermediate, error) {
	in, err := s.loadIntermediate(ctx, q, p, token)
	if err != nil {
		return nil, err
	}
	if in.MemberID != "" {
		if _, _, err := s.orgs.LockMember(ctx, q, p.ID, in.MemberID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	if err := s.spendIntermediate(ctx, q, in.ID); err != nil {
		return nil, err
	}
	return in, nil
}

// spendIntermediate spends the IST id inside q, unless it was spent or
// has expired since it was read: the member's row may have been waited
// for in between (RedeemIntermediate), so the expiry is checked again by
// the spend itself.
func (s *Service) spendIntermediate(ctx context.Context, q store.Querier, id string) error {
	res, err := q.ExecContext(ctx, `UPDATE intermediate_sessions SET used_at = $1 WHERE intermediate_session_id = $2 AND used_at IS NULL
		AND expires_at > $1`, store.Millis(s.clock.Now()), id)
	if err != nil {
		return fmt.Errorf("session: redeem ist: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return apierr.New(apierr.IntermediateSessionNotFound)
	}
	return nil
}

// PriorFactors returns the factors of an IST presented alongside a primary
// authentication of member m in org, consuming the IST. The SDK sends its
// IST cookie with every such call, so a stale IST, or one that belongs to
// someone else, is ignored rather than failing an otherwise good login.
func (s *Service) PriorFactors(ctx context.Context, q store.Querier, p *project.Project, token, orgID, memberID, email string) ([]Factor, error) {
	if token == "" {
		return nil, nil
	}
	in, err := s.loadIntermediate(ctx, q, p, token)
	if apierr.Is(err, apierr.IntermediateSessionNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sameMember := in.MemberID == memberID && in.OrganizationID == orgID
	sameEmail := in.OrganizationID == "" && in.Email == email
	if !sameMember && !sameEmail {
		return nil, nil
	}
	if _, err := s.RedeemIntermediate(ctx, q, p, token); err != nil {
		if apierr.Is(err, apierr.IntermediateSessionNotFound) {
			return nil, nil
		}
		return nil, err
	}
	return in.Factors, nil
}
