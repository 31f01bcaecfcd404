package mfa

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"strings"

	"github.com/google/uuid"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Recovery codes: RecoveryCodeCount single-use codes per TOTP
// registration, usable once the registration is verified.
//
// Storage. Codes are checked only against salted SHA-256 hashes
// (constant-time compare, single use by conditional UPDATE). The API also
// has a "get" that shows the member's unused codes again, so each row also
// keeps a readable copy (reveal), sealed at rest with the encryption key
// for its row (RecoveryCodeColumn) like the TOTP secret the codes back up:
// a database dump alone yields no working second factor. Spending a code
// erases its copy, so get shows the codes still unused.
const RecoveryCodeCount = 10

// recoveryAlphabet has 32 symbols without the look-alikes 0/o and 1/l, so
// each symbol carries 5 bits: a 12-symbol code is 60 bits.
const recoveryAlphabet = "abcdefghijkmnpqrstuvwxyz23456789"

// newRecoveryCode returns a code like "k7mq-3xbe-9ptw".
func newRecoveryCode() string {
	var b strings.Builder
	n := big.NewInt(int64(len(recoveryAlphabet)))
	for i := range 12 {
		if i > 0 && i%4 == 0 {
			b.WriteByte('-')
		}
		d, err := rand.Int(rand.Reader, n)
		if err != nil {
			panic(fmt.Errorf("mfa: crypto/rand: %w", err))
		}
		b.WriteByte(recoveryAlphabet[d.Int64()])
	}
	return b.String()
}

func newRecoveryCodes() []string {
	out := make([]string, RecoveryCodeCount)
	for i := range out {
		out[i] = newRecoveryCode()
	}
	return out
}

// normalizeRecoveryCode is what is hashed: case, spaces and dashes do not
// matter when a person types a code back.
func normalizeRecoveryCode(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// RecoveryCodeColumn is where the readable copy of each recovery code is
// kept, sealed at rest for its row.
var RecoveryCodeColumn = atrest.Column{Table: "recovery_codes", Key: "recovery_code_id", Column: "reveal"}

// storeRecoveryCodes replaces the registration's codes with codes.
func (s *Service) storeRecoveryCodes(ctx context.Context, q store.Querier, memberID, regID string, codes []string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM recovery_codes WHERE totp_registration_id = $1`, regID); err != nil {
		return fmt.Errorf("mfa: drop recovery codes: %w", err)
	}
	now := store.Millis(s.d.Clock.Now())
	for i, c := range codes {
		id, salt := uuid.NewString(), ids.Token()
		sealed, err := RecoveryCodeColumn.SealStored(s.d.Box, id, c)
		if err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO recovery_codes (recovery_code_id, member_id, totp_registration_id, position,
			code_salt, code_hash, reveal, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`, id,
			memberID, regID, i, salt, ids.HashCode(salt, normalizeRecoveryCode(c)), sealed, now); err != nil {
			return fmt.Errorf("mfa: store recovery code: %w", err)
		}
	}
	return nil
}

// RecoverParams is a b2b/recovery_codes/recover request.
type RecoverParams struct {
	Who             Who
	ClientIP        string
	Code            string
	DurationMinutes *int
}

// RecoverResult is a completed login (or step-up) by recovery code.
type RecoverResult struct {
	*session.AuthResponse
	RecoveryCodesRemaining int `json:"recovery_codes_remaining"`
}

// Recover spends one recovery code as the second factor.
func (s *Service) Recover(ctx context.Context, p RecoverParams) (*RecoverResult, error) {
	code := normalizeRecoveryCode(p.Code)
	if code == "" {
		return nil, apierr.Invalid("recovery_code", "recovery_code is required.")
	}
	if len(code) > 64 {
		return nil, apierr.New(apierr.UnableToAuthRecoveryCode)
	}
	duration, err := session.DurationMinutes(ctx, p.Who.Project, p.DurationMinutes)
	if err != nil {
		return nil, err
	}
	sub, err := s.resolve(ctx, p.Who, false)
	if err != nil {
		return nil, err
	}
	// The codes back up the authenticator app: where the organization
	// does not allow apps, they do not pass MFA either.
	if err := requireMethod(sub.org, sub.member, organization.MFAMethodTOTP); err != nil {
		return nil, err
	}
	proj := p.Who.Project
	out := &RecoverResult{}
	// Mid-login the per-IST cap of authenticator codes applies, in the
	// same bucket (istCap): one login gets AttemptsPerIST guesses at
	// either kind of code, not that many of each.
	err = s.guard(ctx, sub, proj.ID+"|"+p.ClientIP, apierr.UnableToAuthRecoveryCode, func() error {
		return s.d.DB.Tx(ctx, func(q store.Querier) error {
			m, err := s.reload(ctx, q, proj, sub)
			if err != nil {
				return err
			}
			if m.TOTPRegistrationID == "" {
				return apierr.New(apierr.NoActiveRecoveryCodeBackedFactor)
			}
			if err := s.spendRecoveryCode(ctx, q, m, code); err != nil {
				return err
			}
			if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM recovery_codes WHERE totp_registration_id = $1 AND used_at IS NULL`,
				m.TOTPRegistrationID).Scan(&out.RecoveryCodesRemaining); err != nil {
				return fmt.Errorf("mfa: count recovery codes: %w", err)
			}
			out.AuthResponse, err = s.finish(ctx, q, proj, sub, m, session.Factor{Type: "recovery_codes",
				DeliveryMethod: "recovery_code"}, duration)
			return err
		})
	}, istCap(sub)...)
	if err != nil {
		return nil, publicErr(err, "recover")
	}
	return out, nil
}

// spendRecoveryCode marks the matching unused code of the member's
// registration used and erases its readable copy.
func (s *Service) spendRecoveryCode(ctx context.Context, q store.Querier, m *organization.Member, code string) error {
	rows, err := q.QueryContext(ctx, `SELECT recovery_code_id, code_salt, code_hash FROM recovery_codes
		WHERE totp_registration_id = $1 AND member_id = $2 AND used_at IS NULL`, m.TOTPRegistrationID, m.MemberID)
	if err != nil {
		return fmt.Errorf("mfa: load recovery codes: %w", err)
	}
	var match string
	for rows.Next() {
		var id, salt, hash string
		if err := rows.Scan(&id, &salt, &hash); err != nil {
			rows.Close()
			return fmt.Errorf("mfa: scan recovery code: %w", err)
		}
		// Compare against every code, not stopping at a match.
		if ids.Equal(ids.HashCode(salt, code), hash) && match == "" {
			match = id
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("mfa: load recovery codes: %w", err)
	}
	if match == "" {
		return apierr.New(apierr.UnableToAuthRecoveryCode)
	}
	res, err := q.ExecContext(ctx, `UPDATE recovery_codes SET used_at = $1, reveal = NULL WHERE recovery_code_id = $2 AND used_at IS NULL`,
		store.Millis(s.d.Clock.Now()), match)
	if err != nil {
		return fmt.Errorf("mfa: spend recovery code: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return apierr.New(apierr.UnableToAuthRecoveryCode)
	}
	return nil
}

// CodesResult answers get and rotate.
type CodesResult struct {
	MemberResult
	RecoveryCodes []string
}

// RecoveryCodes shows the member's unused recovery codes again (an empty
// list once every code is spent). A login in progress (IST) may never read
// them: they would turn the first factor alone into both. Where the
// organization does not allow authenticator apps, which the codes back up,
// neither get nor rotate serves them, as TOTP create does not.
func (s *Service) RecoveryCodes(ctx context.Context, w Who) (*CodesResult, error) {
	sub, err := s.resolveForChange(ctx, w)
	if err != nil {
		return nil, err
	}
	m := sub.member
	// A deleted member's codes are not shown, even to the backend: they
	// would let whoever reads them pass MFA once the member is reactivated.
	if err := requireActive(m); err != nil {
		return nil, err
	}
	if err := requireMethod(sub.org, m, organization.MFAMethodTOTP); err != nil {
		return nil, err
	}
	if m.TOTPRegistrationID == "" {
		return nil, apierr.New(apierr.TOTPNotFound)
	}
	rows, err := s.d.DB.Read().QueryContext(ctx, `SELECT recovery_code_id, reveal FROM recovery_codes
		WHERE totp_registration_id = $1 AND used_at IS NULL ORDER BY position`, m.TOTPRegistrationID)
	if err != nil {
		return nil, fmt.Errorf("mfa: read recovery codes: %w", err)
	}
	defer rows.Close()
	codes := []string{}
	for rows.Next() {
		var id string
		var reveal *string
		if err := rows.Scan(&id, &reveal); err != nil {
			return nil, fmt.Errorf("mfa: scan recovery codes: %w", err)
		}
		if reveal == nil {
			// Versions before sealing erased every copy of a set at its
			// first use: such a set cannot be shown, only rotated.
			return nil, apierr.New(apierr.RecoveryCodesNotFound)
		}
		code, err := RecoveryCodeColumn.OpenStored(s.d.Box, id, *reveal)
		if err != nil {
			return nil, fmt.Errorf("mfa: read recovery codes: %w", err)
		}
		codes = append(codes, code)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("mfa: read recovery codes: %w", err)
	}
	return &CodesResult{MemberResult: MemberResult{Member: m, Organization: sub.org}, RecoveryCodes: codes}, nil
}

// RotateRecoveryCodes replaces the member's recovery codes with a new set.
func (s *Service) RotateRecoveryCodes(ctx context.Context, w Who) (*CodesResult, error) {
	sub, err := s.resolveForChange(ctx, w)
	if err != nil {
		return nil, err
	}
	if err := requireMethod(sub.org, sub.member, organization.MFAMethodTOTP); err != nil {
		return nil, err
	}
	if sub.member.TOTPRegistrationID == "" {
		return nil, apierr.New(apierr.TOTPNotFound)
	}
	if err := s.d.Limiter.Allow(ctx, WritesPerMember, sub.member.MemberID); err != nil {
		return nil, err
	}
	codes := newRecoveryCodes()
	var m *organization.Member
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		// As get refuses to show a deleted member's codes, rotate must not
		// issue them: they would pass MFA once the member is reactivated.
		// reload checks the member is active on the locked, committed row
		// (requireActive), so a delete racing this request cannot slip in
		// between the check and the write; the registration is taken from
		// that row too.
		var err error
		if m, err = s.reload(ctx, q, w.Project, sub); err != nil {
			return err
		}
		if m.TOTPRegistrationID == "" {
			return apierr.New(apierr.TOTPNotFound)
		}
		return s.storeRecoveryCodes(ctx, q, m.MemberID, m.TOTPRegistrationID, codes)
	})
	if err != nil {
		return nil, publicErr(err, "rotate recovery codes")
	}
	return &CodesResult{MemberResult: MemberResult{Member: m, Organization: sub.org}, RecoveryCodes: codes}, nil
}

// guard runs check under the failure limits, counted first: the attempt
// is reserved against the member and the client address (and whatever
// extra keys the caller adds) before the code is looked at. A member over
// FailuresPerMember is locked out (user_lock_limit_reached, and is_locked).
// Checks failing with the failure type count; successes give their
// attempt back where the rule says so.
func (s *Service) guard(ctx context.Context, sub *subject, ipKey string, failure apierr.Type, check func() error,
	extra ...ratelimit.Key) error {
	keys := append([]ratelimit.Key{
		ratelimit.For(FailuresPerMember, sub.member.MemberID).About(
			ratelimit.EmailSubject(sub.member.ProjectID(), sub.member.EmailAddress)),
		ratelimit.For(FailuresPerIP, ipKey),
	}, extra...)
	return s.d.Limiter.Guard(ctx, check, ratelimit.FailureOf(failure), keys...)
}
