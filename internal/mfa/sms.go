package mfa

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/locale"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/phone"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// SMSSendParams is a b2b/otps/sms/send request.
type SMSSendParams struct {
	Who      Who
	ClientIP string
	// Phone is mfa_phone_number: the number to enroll. Empty means the
	// member's enrolled number.
	Phone  string
	Locale locale.Tag // the text's language
}

// MemberResult is the member an MFA call acted for (MemberResponseCommon).
type MemberResult struct {
	Member       *organization.Member
	Organization *organization.Organization
}

// SendSMS sends a fresh 6-digit code to the member's enrolled number, or
// to a number being enrolled. The number becomes the member's only when a
// code sent to it is authenticated.
func (s *Service) SendSMS(ctx context.Context, p SMSSendParams) (*MemberResult, error) {
	sub, err := s.resolve(ctx, p.Who, true)
	if err != nil {
		return nil, err
	}
	m, org := sub.member, sub.org
	if err := requireMethod(org, m, organization.MFAMethodSMS); err != nil {
		return nil, err
	}
	if err := requireActive(m); err != nil {
		return nil, err
	}
	to, err := s.smsDestination(ctx, sub, p.Phone)
	if err != nil {
		return nil, err
	}
	proj := p.Who.Project
	verified := m.MFAPhoneNumberVerified && to == m.MFAPhoneNumber
	for _, k := range smsSendLimits(proj.ID, p.ClientIP, m.MemberID, to, verified) {
		if err := s.d.Limiter.Allow(ctx, k.Rule, k.Key); err != nil {
			return nil, err
		}
	}
	// Store the code first and deliver after the commit: a slow gateway
	// must not hold a write transaction (SQLite has one writer).
	var code string
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		code, err = s.issueSMSCode(ctx, q, proj, org, m, to)
		return err
	})
	if err != nil {
		return nil, publicErr(err, "sms send")
	}
	if err := s.deliverSMS(ctx, nil, proj, org, to, code, p.Locale); err != nil {
		s.smsCodes.Retire(ctx, s.d.DB, proj.ID, m.MemberID)
		return nil, err
	}
	return &MemberResult{Member: m, Organization: org}, nil
}

// smsDestination decides where a send goes: the requested number (an
// enrollment, subject to the enrollment rules and to one member per number
// in an organization) or the enrolled number.
func (s *Service) smsDestination(ctx context.Context, sub *subject, requested string) (string, error) {
	m := sub.member
	if requested == "" {
		if m.MFAPhoneNumber == "" || !m.MFAPhoneNumberVerified {
			return "", apierr.Invalid("mfa_phone_number", "The member has no phone number enrolled: send mfa_phone_number to enroll one.")
		}
		// A number enrolled before premium-rate numbers were refused is
		// not texted either.
		if err := phone.Sendable(m.MFAPhoneNumber); err != nil {
			return "", err
		}
		return m.MFAPhoneNumber, nil
	}
	to, err := phone.Normalize(requested)
	if err != nil {
		return "", err
	}
	if m.MFAPhoneNumberVerified && to == m.MFAPhoneNumber {
		return to, nil
	}
	if err := refuseISTEnrollment(sub, m); err != nil {
		return "", err
	}
	if err := s.stepUp(sub); err != nil {
		return "", err
	}
	holder, err := s.d.Orgs.PhoneHolder(ctx, s.d.DB.Read(), sub.org.OrganizationID, to)
	switch {
	case err == nil && holder != m.MemberID:
		return "", apierr.New(apierr.DuplicateMemberPhoneNumber)
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return "", err
	}
	return to, nil
}

// issueSMSCode stores a fresh code for m (retiring older ones) and returns
// it; the code row remembers the number it goes to.
func (s *Service) issueSMSCode(ctx context.Context, q store.Querier, p *project.Project, org *organization.Organization,
	m *organization.Member, to string) (string, error) {
	return s.smsCodes.Issue(ctx, q, p.Env, p.ID, m.MemberID, SMSCodeExpiry,
		map[string]any{"organization_id": org.OrganizationID, "phone_number": to})
}

// deliverSMS sends the code message in loc's language, through q when
// inside a transaction, and maps gateway refusals to the catalogue's phone errors.
func (s *Service) deliverSMS(ctx context.Context, q store.Querier, p *project.Project, org *organization.Organization, to, code string,
	loc locale.Tag) error {
	if s.d.SMS == nil {
		return apierr.Wrap(apierr.SMSDeliveryFailed, errors.New("mfa: no SMS gateway configured: set LATCHKEY_SMS_URL"))
	}
	msg, err := notify.SMSCodeText(to, notify.CodeData{ProjectName: p.Name, OrganizationName: org.OrganizationName,
		Code: code, ExpiresIn: SMSCodeExpiry, Locale: loc})
	if err == nil {
		err = notify.SendSMSIn(ctx, q, s.d.SMS, msg)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, notify.ErrSMSUnsubscribed):
		return apierr.Wrap(apierr.UnsubscribedPhoneNumber, err)
	case errors.Is(err, notify.ErrSMSCountryNotAllowed):
		return apierr.Wrap(apierr.InvalidPhoneNumberCountryCode, err)
	case errors.Is(err, notify.ErrSMSInvalidNumber):
		return apierr.Wrap(apierr.InvalidPhoneNumber, err)
	default:
		return apierr.Wrap(apierr.SMSDeliveryFailed, err)
	}
}

// CodeAuthParams is an SMS or TOTP code check.
type CodeAuthParams struct {
	Who              Who
	ClientIP         string
	Code             string
	DurationMinutes  *int
	SetMFAEnrollment string // "", "enroll" or "unenroll"
	SetDefaultMFA    bool
}

// SMSAuthParams is an SMS code check.
type SMSAuthParams = CodeAuthParams

// beginCodeAuth is what every SMS or TOTP check does before the code: the
// code's format, the enrollment flag, the session duration, who is asking
// (an IST or a session, never the secret alone) and the organization's
// permission for the method.
func (s *Service) beginCodeAuth(ctx context.Context, p CodeAuthParams, method string) (*subject, int, error) {
	if !codePattern.MatchString(p.Code) {
		return nil, 0, apierr.New(apierr.InvalidCode)
	}
	if err := checkEnrollment(p.SetMFAEnrollment); err != nil {
		return nil, 0, err
	}
	duration, err := session.DurationMinutes(ctx, p.Who.Project, p.DurationMinutes)
	if err != nil {
		return nil, 0, err
	}
	sub, err := s.resolve(ctx, p.Who, false)
	if err != nil {
		return nil, 0, err
	}
	if err := requireMethod(sub.org, sub.member, method); err != nil {
		return nil, 0, err
	}
	return sub, duration, nil
}

// AuthenticateSMS checks an SMS code. Mid-login it completes the login;
// with a session it steps the session up. A code sent to a new number
// verifies that number and makes it the member's.
func (s *Service) AuthenticateSMS(ctx context.Context, p SMSAuthParams) (*session.AuthResponse, error) {
	sub, duration, err := s.beginCodeAuth(ctx, p, organization.MFAMethodSMS)
	if err != nil {
		return nil, err
	}
	proj := p.Who.Project
	// Each code allows its own emailotp.MaxAttempts (counted on its row),
	// and a resend makes a new one, so no per-IST cap is needed here.
	keys := []ratelimit.Key{ratelimit.For(SMSCheckPerIP, proj.ID+"|"+p.ClientIP), ratelimit.For(SMSCheckPerMember, sub.member.MemberID)}
	var resp *session.AuthResponse
	err = s.d.Limiter.Guard(ctx, func() error { return s.checkSMS(ctx, p, sub, duration, &resp) },
		ratelimit.FailureOf(apierr.OTPCodeNotFound), keys...)
	return resp, publicErr(err, "sms authenticate")
}

// checkSMS checks the code in one transaction and completes the login or
// step-up; a miss is committed (the code's own attempts) and answered
// otp_code_not_found.
func (s *Service) checkSMS(ctx context.Context, p SMSAuthParams, sub *subject, duration int, out **session.AuthResponse) error {
	proj := p.Who.Project
	var resp *session.AuthResponse
	var wrong bool
	err := s.d.DB.Tx(ctx, func(q store.Querier) error {
		to, err := s.liveCodeNumber(ctx, q, proj, sub.member.MemberID)
		if err != nil {
			return err
		}
		matched, err := s.smsCodes.Check(ctx, q, proj.ID, sub.member.MemberID, p.Code)
		if err != nil {
			return err
		}
		if !matched {
			// Commit the counted miss; the caller answers not found.
			wrong = true
			return nil
		}
		m, err := s.reload(ctx, q, proj, sub)
		if err != nil {
			return err
		}
		if m.MFAPhoneNumber != to || !m.MFAPhoneNumberVerified {
			// A code to a new number enrolls it, which a login in progress
			// may do only under refuseISTEnrollment's rules (the code may
			// even have been sent from a session).
			if err := refuseISTEnrollment(sub, m); err != nil {
				return err
			}
			m.MFAPhoneNumber, m.MFAPhoneNumberVerified = to, true
		}
		applyEnrollment(sub.org, m, organization.MFAMethodSMS, p.SetMFAEnrollment, p.SetDefaultMFA)
		if err := s.d.Orgs.SaveMFA(ctx, q, m); err != nil {
			return err
		}
		resp, err = s.finish(ctx, q, proj, sub, m, session.Factor{Type: session.SMSOTPType, DeliveryMethod: "sms",
			PhoneNumberFactor: &session.PhoneNumberFactor{PhoneID: phoneID(proj, m.MemberID, to), PhoneNumber: to}}, duration)
		return err
	})
	if err == nil && wrong {
		return apierr.New(apierr.OTPCodeNotFound)
	}
	*out = resp
	return err
}

// liveCodeNumber is the number the member's newest live code went to ("" if
// none; Check then reports the miss). It is read in the same transaction
// as the check, so it belongs to the code being checked.
func (s *Service) liveCodeNumber(ctx context.Context, q store.Querier, p *project.Project, memberID string) (string, error) {
	var to string
	err := q.QueryRowContext(ctx, `SELECT phone_number FROM sms_otps WHERE member_id = $1 AND project_id = $2
		AND used_at IS NULL AND expires_at > $3 ORDER BY created_at DESC LIMIT 1`,
		memberID, p.ID, store.Millis(s.d.Clock.Now())).Scan(&to)
	if err := store.MapError(err); err != nil && !errors.Is(err, store.ErrNotFound) {
		return "", fmt.Errorf("mfa: find sms code: %w", err)
	}
	return to, nil
}

// phoneID is a stable identifier of a member's phone number for session
// factors (phone_number_factor.phone_id), derived rather than stored.
func phoneID(p *project.Project, memberID, number string) string {
	return "phone-number-" + string(p.Env) + "-" + uuid.NewSHA1(uuid.NameSpaceOID, []byte(memberID+"|"+number)).String()
}

// DeletePhone removes the member's MFA phone number (and its live codes).
func (s *Service) DeletePhone(ctx context.Context, w Who) (*MemberResult, error) {
	return s.removeFactor(ctx, w, "delete phone", func(q store.Querier, m *organization.Member) error {
		m.MFAPhoneNumber, m.MFAPhoneNumberVerified = "", false
		s.smsCodes.Retire(ctx, q, w.Project.ID, m.MemberID)
		return nil
	})
}

// removeFactor is every factor deletion: the caller must be the member's
// session or the backend (never a login in progress, which could otherwise
// strip the factor it is being asked for), remove edits the member inside
// the transaction, and the default method then points at what remains.
func (s *Service) removeFactor(ctx context.Context, w Who, what string,
	remove func(q store.Querier, m *organization.Member) error) (*MemberResult, error) {
	sub, err := s.resolveForChange(ctx, w)
	if err != nil {
		return nil, err
	}
	var m *organization.Member
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		m, err = s.d.Orgs.MemberForUpdate(ctx, q, w.Project.ID, sub.member.MemberID)
		if err != nil {
			return organization.NotFound(err, apierr.MemberNotFound)
		}
		if err := remove(q, m); err != nil {
			return err
		}
		fixDefault(m)
		return s.d.Orgs.SaveMFA(ctx, q, m)
	})
	if err != nil {
		return nil, publicErr(err, what)
	}
	return &MemberResult{Member: m, Organization: sub.org}, nil
}
