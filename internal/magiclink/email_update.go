package magiclink

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// PurposeEmailUpdate marks a link that verifies a member's new address:
// redeeming it (Authenticate) changes the member's email to that address.
const PurposeEmailUpdate = "email_update"

// IssueEmailUpdate stores, inside q, a link for member m of org that
// verifies the new address email, and returns its token and id. The
// caller delivers it (to email, never to the old address) and has already
// cancelled the member's earlier email updates.
func (s *Service) IssueEmailUpdate(ctx context.Context, q store.Querier, p *project.Project, org *organization.Organization,
	m *organization.Member, email string, minutes int) (token, id string, err error) {
	token, id = ids.Token(), ids.New("magic-link", p.Env)
	now := s.d.Clock.Now()
	_, err = q.ExecContext(ctx, `INSERT INTO magic_links (magic_link_id, project_id, organization_id, member_id, token_hash,
		purpose, email_address, created_at, expires_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)`,
		id, p.ID, org.OrganizationID, m.MemberID, ids.Hash(token), PurposeEmailUpdate, email,
		store.Millis(now), store.Millis(now.Add(time.Duration(minutes)*time.Minute)))
	if err != nil {
		return "", "", fmt.Errorf("magiclink: insert email update: %w", err)
	}
	return token, id, nil
}

// CancelEmailUpdates spends, inside q, every live email-update link of a
// member: a member has at most one email update in flight.
func (s *Service) CancelEmailUpdates(ctx context.Context, q store.Querier, memberID string) error {
	return s.spendPurpose(ctx, q, memberID, PurposeEmailUpdate, "")
}

// spendPurpose spends, inside q, the member's live links of purpose but
// the one whose id is keep ("" keeps none: no link has an empty id).
func (s *Service) spendPurpose(ctx context.Context, q store.Querier, memberID, purpose, keep string) error {
	_, err := q.ExecContext(ctx, `UPDATE magic_links SET used_at = $1
		WHERE member_id = $2 AND purpose = $3 AND used_at IS NULL AND magic_link_id <> $4`,
		store.Millis(s.d.Clock.Now()), memberID, purpose, keep)
	if err != nil {
		return fmt.Errorf("magiclink: spend the %s links of %s: %w", purpose, memberID, err)
	}
	return nil
}

// EmailUpdatePending reports, inside q, whether a member of org other
// than memberID has a live email-update link to email
// (emailupdate.Service.Start refuses a second update to one address).
func (s *Service) EmailUpdatePending(ctx context.Context, q store.Querier, projectID, orgID, email, memberID string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM magic_links WHERE project_id = $1 AND organization_id = $2
		AND purpose = $3 AND email_address = $4 AND member_id <> $5 AND used_at IS NULL AND expires_at > $6 LIMIT 1`,
		projectID, orgID, PurposeEmailUpdate, email, memberID, store.Millis(s.d.Clock.Now())).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("magiclink: find email updates: %w", err)
	}
	return true, nil
}

// EmailUpdateLink is the emailed URL of an email-update token: the
// registered login redirect URL with the usual token parameters.
func EmailUpdateLink(target, token string) (string, error) { return withToken(target, token) }
