package password

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// resetToken is a stored reset token. OrganizationID and MemberID are empty
// for discovery resets.
type resetToken struct {
	ID             string
	OrganizationID string
	MemberID       string
	Email          string
	Challenge      string
}

// issueReset stores a new reset token inside q and returns it with its
// row id.
func (s *Service) issueReset(ctx context.Context, q store.Querier, p *project.Project, orgID, memberID, email, challenge string,
	minutes int) (token, id string, err error) {
	token, id = ids.Token(), ids.New("password-reset", p.Env)
	now := s.d.Clock.Now()
	_, err = q.ExecContext(ctx, `INSERT INTO password_resets (reset_id, project_id, organization_id, member_id,
		email_address, token_hash, pkce_code_challenge, created_at, expires_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)`,
		id, p.ID, nullable(orgID), nullable(memberID), email, ids.Hash(token), challenge, store.Millis(now),
		store.Millis(now.Add(time.Duration(minutes)*time.Minute)))
	if err != nil {
		return "", "", fmt.Errorf("password: store reset token: %w", err)
	}
	return token, id, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// burnReset makes an issued token unusable (its email was not sent).
func (s *Service) burnReset(ctx context.Context, id string) {
	// Best effort: the token expires on its own anyway.
	_, _ = s.d.DB.ExecContext(ctx, `UPDATE password_resets SET used_at = $1 WHERE reset_id = $2 AND used_at IS NULL`,
		store.Millis(s.d.Clock.Now()), id)
}

// ReleaseAddress spends, inside q, the live reset tokens sent to a member
// at r.Email, their address having changed or the member having been
// reactivated after a deletion (organization.AddressHolder). ResetByEmail already refuses a token whose
// address is not the member's; spending it also keeps a deleted member's
// reset link from working again once the member is reactivated. Discovery
// resets name no member and stay: they belong to the address, whoever
// holds it.
func (s *Service) ReleaseAddress(ctx context.Context, q store.Querier, r organization.Released) error {
	_, err := q.ExecContext(ctx, `UPDATE password_resets SET used_at = $1
		WHERE project_id = $2 AND email_address = $3 AND member_id = $4 AND used_at IS NULL`,
		store.Millis(s.d.Clock.Now()), r.ProjectID, r.Email, r.MemberID)
	if err != nil {
		return fmt.Errorf("password: spend reset tokens of %s: %w", r.MemberID, err)
	}
	return nil
}

// lookupReset finds a live token of the project, of the wanted kind, and
// checks PKCE before anything is spent: a link intercepted without the
// browser's verifier can neither be used nor burned. Every failure to find
// one is unable_to_auth_magic_link, as the link in the email is a magic
// link to the person holding it.
func (s *Service) lookupReset(ctx context.Context, p *project.Project, token, verifier string, discovery bool) (*resetToken, error) {
	if token == "" {
		return nil, apierr.Invalid("password_reset_token", "password_reset_token is required.")
	}
	var t resetToken
	var orgID, memberID *string
	var expires int64
	var used *int64
	err := s.d.DB.Read().QueryRowContext(ctx, `SELECT reset_id, organization_id, member_id, email_address, pkce_code_challenge,
		expires_at, used_at FROM password_resets WHERE token_hash = $1 AND project_id = $2`, ids.Hash(token), p.ID).
		Scan(&t.ID, &orgID, &memberID, &t.Email, &t.Challenge, &expires, &used)
	if err != nil {
		return nil, apierr.Wrap(apierr.UnableToAuthMagicLink, store.MapError(err))
	}
	if orgID != nil {
		t.OrganizationID = *orgID
	}
	if memberID != nil {
		t.MemberID = *memberID
	}
	if used != nil || !s.d.Clock.Now().Before(store.Time(expires)) || discovery != (t.OrganizationID == "") {
		return nil, apierr.New(apierr.UnableToAuthMagicLink)
	}
	if err := flowtoken.CheckPKCE(t.Challenge, verifier, "reset link"); err != nil {
		return nil, err
	}
	return &t, nil
}

// consumeReset spends a token inside the caller's transaction; of two
// concurrent redemptions only one updates the row. The token's expiry is
// checked again as it is spent: the new password's hash ran since the
// token was looked up (lookupReset), so a token looked up just before it
// expired must not be spent after.
func (s *Service) consumeReset(ctx context.Context, q store.Querier, id string) error {
	res, err := q.ExecContext(ctx, `UPDATE password_resets SET used_at = $1 WHERE reset_id = $2 AND used_at IS NULL
		AND expires_at > $1`, store.Millis(s.d.Clock.Now()), id)
	if err != nil {
		return fmt.Errorf("password: spend reset token: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return apierr.New(apierr.UnableToAuthMagicLink)
	}
	return nil
}

// resetLink appends the token parameters to a registered reset URL, plus
// stytch_redirect_type=reset_password so the widget opens its reset form.
func resetLink(target, tokenType, token string) (string, error) {
	link, err := flowtoken.TokenLink(target, tokenType, token, url.Values{"stytch_redirect_type": {"reset_password"}})
	if err != nil {
		return "", fmt.Errorf("password: reset url: %w", err)
	}
	return link, nil
}

// resetMinutes validates reset_password_expiration_minutes.
func resetMinutes(requested int) (int, error) {
	if requested == 0 {
		return DefaultResetMinutes, nil
	}
	if requested < MinResetMinutes || requested > MaxResetMinutes {
		return 0, apierr.Invalid("reset_password_expiration_minutes",
			fmt.Sprintf("reset_password_expiration_minutes must be between %d and %d.", MinResetMinutes, MaxResetMinutes))
	}
	return requested, nil
}
