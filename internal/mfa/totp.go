package mfa

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/latchkey/latchkey/internal/atrest"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Pending registrations live 60 minutes by default (5 to 1440 allowed),
// the API family's bounds for expiration_minutes.
const (
	DefaultTOTPExpiration = 60
	minTOTPExpiration     = 5
	maxTOTPExpiration     = 1440
)

// TOTPCreateParams is a b2b/totp create request.
type TOTPCreateParams struct {
	Who               Who
	ExpirationMinutes int
}

// TOTPCreateResult is a new, pending registration: the secret for manual
// entry, the QR code, and the registration's recovery codes.
type TOTPCreateResult struct {
	MemberResult
	RegistrationID string
	Secret         string
	QRCode         string
	RecoveryCodes  []string
}

// CreateTOTP starts an authenticator-app registration. It stays pending
// (the member's totp_registration_id unchanged) until a code from the app
// is authenticated; a newer pending registration replaces an older one.
// A member who already has a verified registration may re-enroll from a
// (recent) session or through the backend: the old app and its recovery
// codes keep working until a code from the new app is authenticated with
// a session, which replaces them (AuthenticateTOTP). A login in progress
// may not (refuseISTEnrollment).
func (s *Service) CreateTOTP(ctx context.Context, p TOTPCreateParams) (*TOTPCreateResult, error) {
	exp := p.ExpirationMinutes
	if exp == 0 {
		exp = DefaultTOTPExpiration
	}
	if exp < minTOTPExpiration || exp > maxTOTPExpiration {
		return nil, apierr.Invalid("expiration_minutes", "expiration_minutes must be between 5 and 1440.")
	}
	sub, err := s.resolve(ctx, p.Who, true)
	if err != nil {
		return nil, err
	}
	m, org, proj := sub.member, sub.org, p.Who.Project
	if err := requireMethod(org, m, organization.MFAMethodTOTP); err != nil {
		return nil, err
	}
	if err := requireActive(m); err != nil {
		return nil, err
	}
	if err := refuseISTEnrollment(sub, m); err != nil {
		return nil, err
	}
	if err := s.stepUp(sub); err != nil {
		return nil, err
	}
	if err := s.d.Limiter.Allow(ctx, WritesPerMember, m.MemberID); err != nil {
		return nil, err
	}
	issuer := org.OrganizationName
	if issuer == "" {
		issuer = proj.Name
	}
	key, err := newTOTPKey(issuer, m.EmailAddress)
	if err != nil {
		return nil, err
	}
	qr, err := qrDataURL(key)
	if err != nil {
		return nil, err
	}
	out := &TOTPCreateResult{MemberResult: MemberResult{Member: m, Organization: org},
		RegistrationID: ids.New("member-totp", proj.Env), Secret: key.Secret(), QRCode: qr, RecoveryCodes: newRecoveryCodes()}
	sealed, err := TOTPSecretColumn.SealStored(s.d.Box, out.RegistrationID, out.Secret)
	if err != nil {
		return nil, err
	}
	now := s.d.Clock.Now()
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		// The member is locked first, as every writer of its registrations
		// does (reload): on PostgreSQL concurrent creates would otherwise
		// each find no pending registration to drop and all insert theirs.
		if _, err := s.reload(ctx, q, proj, sub); err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, `DELETE FROM totp_registrations WHERE member_id = $1 AND verified_at IS NULL`, m.MemberID); err != nil {
			return fmt.Errorf("drop pending registrations: %w", err)
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO totp_registrations (totp_registration_id, project_id, organization_id, member_id,
			secret, created_at, expires_at) VALUES ($1,$2,$3,$4,$5,$6,$7)`, out.RegistrationID, proj.ID, org.OrganizationID,
			m.MemberID, sealed, store.Millis(now), store.Millis(now.Add(time.Duration(exp)*time.Minute))); err != nil {
			return fmt.Errorf("insert registration: %w", err)
		}
		return s.storeRecoveryCodes(ctx, q, m.MemberID, out.RegistrationID, out.RecoveryCodes)
	})
	if err != nil {
		return nil, publicErr(err, "totp create")
	}
	return out, nil
}

// TOTPAuthParams is a b2b/totp/authenticate request.
type TOTPAuthParams = CodeAuthParams

// TOTPSecretColumn is where TOTP secrets are kept, sealed at rest: they
// must stay readable to check codes, so they cannot be hashed.
var TOTPSecretColumn = atrest.Column{Table: "totp_registrations", Key: "totp_registration_id", Column: "secret"}

type registration struct {
	id, secret   string
	lastUsedStep int64
	verified     bool
}

// istCap is the per-IST attempt key of a login in progress: one login may
// try AttemptsPerIST authenticator and recovery codes together, then must
// start again, so no single login walks a member's whole allowance (and a
// stolen IST is worth a handful of guesses).
func istCap(sub *subject) []ratelimit.Key {
	if !sub.midLogin() {
		return nil
	}
	return []ratelimit.Key{ratelimit.For(AttemptsPerIST, sub.ist)}
}

// AuthenticateTOTP checks a code from the member's authenticator app. The
// first accepted code of a pending registration verifies it: it becomes
// the member's registration, replacing any older one with its codes.
func (s *Service) AuthenticateTOTP(ctx context.Context, p TOTPAuthParams) (*session.AuthResponse, error) {
	sub, duration, err := s.beginCodeAuth(ctx, p, organization.MFAMethodTOTP)
	if err != nil {
		return nil, err
	}
	proj := p.Who.Project
	var resp *session.AuthResponse
	err = s.guard(ctx, sub, proj.ID+"|"+p.ClientIP, apierr.OTPCodeNotFound, func() error {
		return s.d.DB.Tx(ctx, func(q store.Querier) error {
			m, err := s.reload(ctx, q, proj, sub)
			if err != nil {
				return err
			}
			regs, err := s.registrationsFor(ctx, q, sub, m)
			if err != nil {
				return err
			}
			for _, reg := range regs {
				if !reg.verified {
					if err := refuseISTEnrollment(sub, m); err != nil {
						return err
					}
				}
			}
			reg, err := s.acceptTOTP(ctx, q, regs, p.Code)
			if err != nil {
				return err
			}
			if !reg.verified {
				if err := s.verifyRegistration(ctx, q, m, reg.id); err != nil {
					return err
				}
			}
			applyEnrollment(sub.org, m, organization.MFAMethodTOTP, p.SetMFAEnrollment, p.SetDefaultMFA)
			if err := s.d.Orgs.SaveMFA(ctx, q, m); err != nil {
				return err
			}
			resp, err = s.finish(ctx, q, proj, sub, m, session.Factor{Type: "totp", DeliveryMethod: "authenticator_app"}, duration)
			return err
		})
	}, istCap(sub)...)
	if err != nil {
		return nil, publicErr(err, "totp authenticate")
	}
	return resp, nil
}

// registrationsFor lists the registrations a code is checked against:
// the member's verified one and their newest pending one that has not
// expired, verified first. A login in progress (IST) gets only the first
// of these: it must present the factor the member has, and a pending
// registration there could only be a second enrollment, which
// refuseISTEnrollment refuses. A session gets both, so a code from a newly
// created app verifies it (replacing the old one, as CreateTOTP promises)
// while the old app still steps the session up until then.
func (s *Service) registrationsFor(ctx context.Context, q store.Querier, sub *subject, m *organization.Member) ([]*registration, error) {
	var out []*registration
	if m.TOTPRegistrationID != "" {
		r, err := s.loadRegistration(q.QueryRowContext(ctx, `SELECT totp_registration_id, secret, last_used_step, verified_at
			FROM totp_registrations WHERE totp_registration_id = $1 AND member_id = $2`, m.TOTPRegistrationID, m.MemberID))
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		if r != nil {
			out = append(out, r)
		}
	}
	if len(out) == 0 || !sub.midLogin() {
		r, err := s.loadRegistration(q.QueryRowContext(ctx, `SELECT totp_registration_id, secret, last_used_step, verified_at
			FROM totp_registrations WHERE member_id = $1 AND verified_at IS NULL AND expires_at > $2
			ORDER BY created_at DESC LIMIT 1`, m.MemberID, store.Millis(s.d.Clock.Now())))
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		if r != nil {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, apierr.Wrap(apierr.TOTPNotFound, fmt.Errorf("mfa: member %s: no live registration: %w", m.MemberID, store.ErrNotFound))
	}
	return out, nil
}

// loadRegistration scans one registration row and opens its secret; a
// missing row is store.ErrNotFound.
func (s *Service) loadRegistration(row *sql.Row) (*registration, error) {
	var r registration
	var verifiedAt *int64
	err := store.MapError(row.Scan(&r.id, &r.secret, &r.lastUsedStep, &verifiedAt))
	if errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("mfa: load registration: %w", err)
	}
	r.verified = verifiedAt != nil
	if r.secret, err = TOTPSecretColumn.OpenStored(s.d.Box, r.id, r.secret); err != nil {
		return nil, fmt.Errorf("mfa: load registration: %w", err)
	}
	return &r, nil
}

// acceptTOTP checks code against each registration at the injected
// clock's now (±TOTPSkew steps) and records its time step on the one it
// matches. Every registration is computed, without stopping at a match,
// so the answer's timing does not tell which one matched. Only a step
// later than the registration's last accepted one is taken, by a
// conditional UPDATE, so the same code (or an older one) is refused even
// when two requests race.
func (s *Service) acceptTOTP(ctx context.Context, q store.Querier, regs []*registration, code string) (*registration, error) {
	var reg *registration
	var step int64
	for _, r := range regs {
		st, ok, err := matchTOTP(r.secret, code, s.d.Clock.Now())
		if err != nil {
			return nil, err
		}
		if ok && st > r.lastUsedStep && reg == nil {
			reg, step = r, st
		}
	}
	if reg == nil {
		return nil, apierr.New(apierr.OTPCodeNotFound)
	}
	res, err := q.ExecContext(ctx, `UPDATE totp_registrations SET last_used_step = $1
		WHERE totp_registration_id = $2 AND last_used_step < $1`, step, reg.id)
	if err != nil {
		return nil, fmt.Errorf("mfa: record totp step: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return nil, apierr.New(apierr.OTPCodeNotFound)
	}
	return reg, nil
}

// verifyRegistration makes a pending registration the member's, dropping
// every other registration (and with them their recovery codes).
func (s *Service) verifyRegistration(ctx context.Context, q store.Querier, m *organization.Member, regID string) error {
	if _, err := q.ExecContext(ctx, `UPDATE totp_registrations SET verified_at = $1 WHERE totp_registration_id = $2`,
		store.Millis(s.d.Clock.Now()), regID); err != nil {
		return fmt.Errorf("mfa: verify registration: %w", err)
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM totp_registrations WHERE member_id = $1 AND totp_registration_id <> $2`,
		m.MemberID, regID); err != nil {
		return fmt.Errorf("mfa: drop old registrations: %w", err)
	}
	m.TOTPRegistrationID = regID
	return nil
}

// DeleteTOTP removes the member's authenticator app registrations and
// their recovery codes.
func (s *Service) DeleteTOTP(ctx context.Context, w Who) (*MemberResult, error) {
	return s.removeFactor(ctx, w, "delete totp", func(q store.Querier, m *organization.Member) error {
		if _, err := q.ExecContext(ctx, `DELETE FROM totp_registrations WHERE member_id = $1`, m.MemberID); err != nil {
			return fmt.Errorf("delete registrations: %w", err)
		}
		m.TOTPRegistrationID = ""
		return nil
	})
}

// TOTPMigrateParams imports a registration from another system.
type TOTPMigrateParams struct {
	Who           Who
	Secret        string
	RecoveryCodes []string
}

// MigrateTOTP (backend only) stores an existing authenticator secret as the
// member's verified registration, with the given recovery codes or a fresh
// set.
func (s *Service) MigrateTOTP(ctx context.Context, p TOTPMigrateParams) (*TOTPCreateResult, error) {
	secret, err := normalizeSecret(p.Secret)
	if err != nil {
		return nil, apierr.Wrap(apierr.InvalidRequest, err).WithMessage("secret must be a base32 TOTP secret of at least 80 bits.").
			WithDetails(map[string]any{"field": "secret"})
	}
	codes := newRecoveryCodes()
	if len(p.RecoveryCodes) > 0 {
		if len(p.RecoveryCodes) > 2*RecoveryCodeCount {
			return nil, apierr.Invalid("recovery_codes", fmt.Sprintf("At most %d recovery codes can be migrated.", 2*RecoveryCodeCount))
		}
		codes = nil
		// Codes are hashed and matched normalised, so two that normalise
		// alike would be one code stored twice: single use would then
		// let it pass MFA twice.
		seen := make(map[string]bool, len(p.RecoveryCodes))
		for _, c := range p.RecoveryCodes {
			n := normalizeRecoveryCode(c)
			if n == "" || len(n) > 64 {
				return nil, apierr.Invalid("recovery_codes", "Recovery codes must be 1 to 64 characters.")
			}
			if seen[n] {
				return nil, apierr.Invalid("recovery_codes",
					"Recovery codes must all differ (case, spaces and dashes are ignored).")
			}
			seen[n] = true
			codes = append(codes, c)
		}
	}
	sub, err := s.resolve(ctx, p.Who, true)
	if err != nil {
		return nil, err
	}
	if sub.midLogin() {
		return nil, apierr.New(apierr.UserUnauthenticated)
	}
	proj := p.Who.Project
	out := &TOTPCreateResult{RegistrationID: ids.New("member-totp", proj.Env), Secret: secret, RecoveryCodes: codes}
	sealed, err := TOTPSecretColumn.SealStored(s.d.Box, out.RegistrationID, secret)
	if err != nil {
		return nil, err
	}
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		m, err := s.reload(ctx, q, proj, sub)
		if err != nil {
			return err
		}
		lastUsed, err := s.carriedStep(ctx, q, m, secret)
		if err != nil {
			return err
		}
		now := store.Millis(s.d.Clock.Now())
		if _, err := q.ExecContext(ctx, `INSERT INTO totp_registrations (totp_registration_id, project_id, organization_id, member_id,
			secret, created_at, expires_at, verified_at, last_used_step) VALUES ($1,$2,$3,$4,$5,$6,$6,$6,$7)`, out.RegistrationID, proj.ID,
			sub.org.OrganizationID, m.MemberID, sealed, now, lastUsed); err != nil {
			return fmt.Errorf("insert registration: %w", err)
		}
		if err := s.verifyRegistration(ctx, q, m, out.RegistrationID); err != nil {
			return err
		}
		if err := s.storeRecoveryCodes(ctx, q, m.MemberID, out.RegistrationID, codes); err != nil {
			return err
		}
		fixDefault(m)
		out.MemberResult = MemberResult{Member: m, Organization: sub.org}
		return s.d.Orgs.SaveMFA(ctx, q, m)
	})
	if err != nil {
		return nil, publicErr(err, "totp migrate")
	}
	return out, nil
}

// carriedStep is the replay guard a migrated secret starts with: the last
// accepted time step of the member's current verified registration when
// that registration has the same secret (compared as normalizeSecret
// writes it), else 0. Without it, migrating the current secret again
// would let a code already used be accepted again within its window.
// m is the member reloaded and locked in q, so no code is accepted on
// the old registration between this read and its replacement.
func (s *Service) carriedStep(ctx context.Context, q store.Querier, m *organization.Member, secret string) (int64, error) {
	if m.TOTPRegistrationID == "" {
		return 0, nil
	}
	r, err := s.loadRegistration(q.QueryRowContext(ctx, `SELECT totp_registration_id, secret, last_used_step, verified_at
		FROM totp_registrations WHERE totp_registration_id = $1 AND member_id = $2 AND verified_at IS NOT NULL`,
		m.TOTPRegistrationID, m.MemberID))
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if old, err := normalizeSecret(r.secret); err != nil || old != secret {
		return 0, nil
	}
	return r.lastUsedStep, nil
}
