package password

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// vacateBatch bounds the addresses of one statement (their placeholders).
const vacateBatch = 500

// MembersRemoved ends, inside q, the password of every address among
// emails that no member row of the project holds any more, the rows that
// held it having been removed for good or moved to another address
// (organization.RemovalHook: an organization's deletion, a purge, an
// address change by an admin, SCIM or the member). The password is the address's,
// shared by its memberships, and knowing it proves the address at login
// (activate): kept after the last membership, it would log in as, and
// verify, whoever is next given the address (a re-created organization's
// new member, a recycled staff address), and show them its
// member_password_id. The address's outstanding reset links go too (an
// organization's go with their member; a discovery one would set a new
// password), and so do its password lockouts, as a password change ends
// them. A deleted member's row still holds its address: its reactivation
// finds the password again.
//
// On PostgreSQL the passwords' rows are locked (in address order, as two
// removals may take them) before the statement that looks for the
// addresses' other members: two removals of an address's last two rows,
// each seeing the other's row still there, would otherwise both keep its
// password. The one that waits reads the other's removal once committed.
// The rows are taken in lockInOrder's order: the members' rows (removed),
// then the passwords', then the attempt counters.
func (s *Service) MembersRemoved(ctx context.Context, q store.Querier, projectID string, emails []string) error {
	for len(emails) > 0 {
		n := min(len(emails), vacateBatch)
		if err := s.vacate(ctx, q, projectID, emails[:n]); err != nil {
			return fmt.Errorf("password: end the passwords of removed members: %w", err)
		}
		emails = emails[n:]
	}
	return nil
}

// vacate is MembersRemoved for one batch of addresses.
func (s *Service) vacate(ctx context.Context, q store.Querier, projectID string, emails []string) error {
	args := make([]any, 0, len(emails)+1)
	args = append(args, projectID)
	for _, e := range emails {
		args = append(args, e)
	}
	in := `email_address IN (` + store.Placeholders(2, len(emails)) + `)`
	if s.d.DB.Dialect() == store.Postgres {
		if _, err := q.ExecContext(ctx, `SELECT password_id FROM member_passwords WHERE project_id = $1 AND `+in+`
			ORDER BY email_address FOR UPDATE`, args...); err != nil {
			return fmt.Errorf("lock passwords: %w", err)
		}
	}
	held, err := s.heldAddresses(ctx, q, in, args)
	if err != nil {
		return err
	}
	vacated := []any{projectID}
	for _, e := range emails {
		if !held[e] {
			vacated = append(vacated, e)
		}
	}
	if len(vacated) == 1 {
		return nil
	}
	in = `email_address IN (` + store.Placeholders(2, len(vacated)-1) + `)`
	if _, err := q.ExecContext(ctx, `DELETE FROM member_passwords WHERE project_id = $1 AND `+in, vacated...); err != nil {
		return fmt.Errorf("delete passwords: %w", err)
	}
	at := append([]any{store.Millis(s.d.Clock.Now())}, vacated...)
	if _, err := q.ExecContext(ctx, `UPDATE password_resets SET used_at = $1 WHERE project_id = $2
		AND email_address IN (`+store.Placeholders(3, len(vacated)-1)+`) AND used_at IS NULL`, at...); err != nil {
		return fmt.Errorf("retire reset tokens: %w", err)
	}
	for _, e := range vacated[1:] {
		if err := s.d.Limiter.Unlock(ctx, q, EmailIPLockout, ratelimit.EmailSubject(projectID, e.(string))); err != nil {
			return err
		}
	}
	return nil
}

// heldAddresses are the addresses among the batch (in, args: vacate's)
// that a member row of the project still holds, whatever its status.
func (s *Service) heldAddresses(ctx context.Context, q store.Querier, in string, args []any) (map[string]bool, error) {
	emails, err := store.Strings(ctx, q, `SELECT DISTINCT email_address FROM members WHERE project_id = $1 AND `+in, args...)
	if err != nil {
		return nil, fmt.Errorf("remaining members: %w", err)
	}
	held := make(map[string]bool, len(emails))
	for _, e := range emails {
		held[e] = true
	}
	return held, nil
}
