package password

import (
	"context"
	"errors"
	"fmt"

	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// credential is the stored password of an email address in a project.
type credential struct {
	ID           string
	Email        string
	Hash         string
	RequireReset bool
}

func (s *Service) credential(ctx context.Context, q store.Querier, projectID, email string) (*credential, error) {
	return s.readCredential(ctx, q, projectID, email, "")
}

// heldCredential is credential for a write decided by what it reads: the
// row is held until q ends (on PostgreSQL FOR NO KEY UPDATE, the lock the
// write's UPDATE takes, as store.DB.LockRow), so a concurrent change of
// the password commits first and is what the read sees. SQLite has one
// writer: a read inside the write transaction is already current.
func (s *Service) heldCredential(ctx context.Context, q store.Querier, projectID, email string) (*credential, error) {
	lock := ""
	if s.d.DB.Dialect() == store.Postgres {
		lock = ` FOR NO KEY UPDATE`
	}
	return s.readCredential(ctx, q, projectID, email, lock)
}

func (s *Service) readCredential(ctx context.Context, q store.Querier, projectID, email, lock string) (*credential, error) {
	c := credential{Email: email}
	err := q.QueryRowContext(ctx, `SELECT password_id, hash, require_reset FROM member_passwords
		WHERE project_id = $1 AND email_address = $2`+lock, projectID, email).Scan(&c.ID, &c.Hash, &c.RequireReset)
	if err != nil {
		return nil, fmt.Errorf("password: credential: %w", store.MapError(err))
	}
	return &c, nil
}

// setHash stores hash as the address's password, creating the credential
// if needed, and clears a forced reset.
func (s *Service) setHash(ctx context.Context, q store.Querier, p *project.Project, email, hash string) error {
	now := store.Millis(s.d.Clock.Now())
	_, err := q.ExecContext(ctx, `INSERT INTO member_passwords (password_id, project_id, email_address, hash, require_reset,
		created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
		ON CONFLICT (project_id, email_address) DO UPDATE SET hash = excluded.hash, require_reset = excluded.require_reset,
		updated_at = excluded.updated_at`, ids.New("member-password", p.Env), p.ID, email, hash, false, now)
	if err != nil {
		return fmt.Errorf("password: store hash: %w", err)
	}
	return nil
}

// addFirst stores hash as the address's password only if it has none,
// and reports whether it did. On PostgreSQL an insert of the address by a
// transaction still open (another import) makes it wait for that one,
// and once that commits it finds the row and stores nothing.
func (s *Service) addFirst(ctx context.Context, q store.Querier, p *project.Project, email, hash string) (bool, error) {
	now := store.Millis(s.d.Clock.Now())
	res, err := q.ExecContext(ctx, `INSERT INTO member_passwords (password_id, project_id, email_address, hash, require_reset,
		created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
		ON CONFLICT (project_id, email_address) DO NOTHING`, ids.New("member-password", p.Env), p.ID, email, hash, false, now)
	if err != nil {
		return false, fmt.Errorf("password: add hash: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("password: add hash: %w", err)
	}
	return n == 1, nil
}

// replaceUsable stores hash as the address's password only if it has one
// whose reset is not forced, in one conditional statement, and reports
// whether it did. A forced reset or a deletion committed first leaves
// nothing to replace; one that commits after applies to the new password.
//
// verified, when not "", is the hash the caller checked the current
// password against, read before its transaction: the row must still hold
// it, so a change committed since the check (a reset through the inbox)
// is not overwritten by whoever knew the password it replaced. On
// PostgreSQL the UPDATE takes the password's row (lockInOrder: after the
// member's), waits for a concurrent writer of it and evaluates its
// conditions on the row that writer committed, so no check can pass on a
// version already replaced. SQLite has one writer: the row read is current.
func (s *Service) replaceUsable(ctx context.Context, q store.Querier, projectID, email, verified, hash string) (bool, error) {
	query := `UPDATE member_passwords SET hash = $1, updated_at = $2
		WHERE project_id = $3 AND email_address = $4 AND require_reset = $5`
	args := []any{hash, store.Millis(s.d.Clock.Now()), projectID, email, false}
	if verified != "" {
		query += ` AND hash = $6`
		args = append(args, verified)
	}
	res, err := q.ExecContext(ctx, query, args...)
	if err != nil {
		return false, fmt.Errorf("password: replace hash: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("password: replace hash: %w", err)
	}
	return n == 1, nil
}

// replaceHash swaps old for new only if the stored hash is still old, so a
// login's upgrade never overwrites a password changed meanwhile.
func (s *Service) replaceHash(ctx context.Context, q store.Querier, id, old, new string) error {
	_, err := q.ExecContext(ctx, `UPDATE member_passwords SET hash = $1, updated_at = $2 WHERE password_id = $3 AND hash = $4`,
		new, store.Millis(s.d.Clock.Now()), id, old)
	if err != nil {
		return fmt.Errorf("password: upgrade hash: %w", err)
	}
	return nil
}

// forceReset marks the address's password as needing a reset; it reports
// whether there was a password to mark.
func (s *Service) forceReset(ctx context.Context, q store.Querier, projectID, email string) (bool, error) {
	res, err := q.ExecContext(ctx, `UPDATE member_passwords SET require_reset = $1, updated_at = $2
		WHERE project_id = $3 AND email_address = $4`, true, store.Millis(s.d.Clock.Now()), projectID, email)
	if err != nil {
		return false, fmt.Errorf("password: require reset: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// retireResets spends every outstanding reset token of the address, so a
// link sent before a password change cannot change it again.
func (s *Service) retireResets(ctx context.Context, q store.Querier, projectID, email string) error {
	_, err := q.ExecContext(ctx, `UPDATE password_resets SET used_at = $1
		WHERE project_id = $2 AND email_address = $3 AND used_at IS NULL`, store.Millis(s.d.Clock.Now()), projectID, email)
	if err != nil {
		return fmt.Errorf("password: retire reset tokens: %w", err)
	}
	return nil
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
