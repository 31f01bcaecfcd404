// Package mfa is multi-factor authentication for organization members: SMS
// one-time passcodes, authenticator apps (TOTP) with recovery codes, the
// organization/member MFA policy that session.Complete consults after a
// primary authentication, and the routes of both API faces.
//
// Every MFA call acts for one member, proven in one of three ways
// (subject.go): an intermediate session token (mid-login, after the
// primary factor), a session (an already logged-in member, e.g. enrolling
// from settings), or, on the backend face only and only for calls that do
// not authenticate, the project secret vouching for the member named in the
// request. Authenticating a second factor ends in session.Complete with the
// IST's factors as Prior, so the session carries both factors.
//
// Security rules that apply throughout:
//   - Every MFA call with an IST (send, check, recover, enroll) needs an
//     IST whose factors satisfy the organization's primary auth policy: an
//     IST answered primary_required (a method the organization does not
//     accept, or no factor at all) proves nothing it trusts, so it may
//     neither text the member nor spend their failure budget.
//   - With only an IST a member may enroll a first MFA method, never add or
//     replace one next to an enrolled method: otherwise a stolen password or
//     mailbox would be enough to register the attacker's phone or app and
//     pass MFA.
//   - From a session a member may replace their authenticator app: the new
//     registration takes over, and the old secret and recovery codes stop
//     working, when a code from the new app is authenticated.
//   - SMS codes are stored as tags under the encryption key
//     (emailotp.Codes), recovery codes (60 bits) as salted hashes; both are
//     compared in constant time; each is single use through a conditional
//     UPDATE; SMS codes expire after 2 minutes and lock after
//     emailotp.MaxAttempts wrong guesses. The copy of an unused recovery
//     code that get shows again is sealed at rest, as TOTP secrets are.
//   - A TOTP code is accepted for one time step of clock skew either way
//     and only for a time step later than the last accepted one, so a code
//     cannot be replayed within its window.
//   - Sends and checks are rate-limited per member, per phone number and
//     per client address; failed TOTP and recovery-code checks lock the
//     member out for a while.
package mfa

import (
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/secretbox"
	"regexp"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/emailotp"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Deps are the collaborators of the MFA service.
type Deps struct {
	DB       *store.DB
	Clock    clock.Clock
	Orgs     *organization.Store
	Sessions *session.Service
	// SMS delivers text messages; nil means no gateway is configured and
	// SMS sends fail with sms_delivery_failed.
	SMS     notify.SMSSender
	Limiter *ratelimit.Limiter
	Box     *secretbox.Box // seals TOTP secrets and recovery codes' readable copies at rest
	// Audit records the factors EndUnprovenFactors removes; nil records
	// nothing.
	Audit audit.InTx
}

// Service implements SMS codes, TOTP, recovery codes and the MFA policy.
type Service struct {
	d        Deps
	smsCodes emailotp.Codes
}

// New returns an MFA service.
func New(d Deps) *Service {
	return &Service{d: d, smsCodes: emailotp.Codes{Table: "sms_otps", IDColumn: "sms_otp_id", KeyColumn: "member_id", Clock: d.Clock, Box: d.Box}}
}

// Spec constants: 6-digit codes, SMS codes live 2 minutes.
const (
	CodeLength    = 6
	SMSCodeExpiry = 2 * time.Minute
)

// Rate limits. SMS costs money and reaches a third party's phone, so sends
// are bounded per member, per number (short and long windows) and per
// address; guesses are bounded per member beyond the per-code lockout.
//
// A number's budget is kept apart by who is texting it (smsSendLimits).
// Codes to a member's own verified number (a login's, or one asked for)
// count in SMSSendPerPhone and SMSSendPerPhoneHour. Enrolment sends, to a
// number the sending member has not verified, count in the SMSEnroll*
// buckets instead: anyone can type someone else's number, and were those
// sends in the same buckets, a stranger's five sends would block the
// holder's own codes for ten minutes, again and again.
var (
	SMSSendPerMember    = ratelimit.Rule{Name: "sms_send_member", Limit: 5, Window: 10 * time.Minute}
	SMSSendPerPhone     = ratelimit.Rule{Name: "sms_send_phone", Limit: 5, Window: 10 * time.Minute}
	SMSSendPerPhoneHour = ratelimit.Rule{Name: "sms_send_phone_hour", Limit: 10, Window: time.Hour}
	SMSSendPerIP        = ratelimit.Rule{Name: "sms_send_ip", Limit: 50, Window: 10 * time.Minute, PerClientAddress: true}
	// Enrolment sends. Per member and number, 5 an hour: enrolling a
	// number takes a code and perhaps a few resends, and one member
	// cannot spend more than half the number's hourly enrolment budget.
	// Per number, across members: the ceiling every number had before
	// (5 in ten minutes, 10 an hour), so many members together still
	// cannot text a number they have not verified without limit; filling
	// it delays only enrolments of that number, never a holder's codes.
	SMSEnrollPerMemberPhone = ratelimit.Rule{Name: "sms_enroll_member_phone", Limit: 5, Window: time.Hour}
	SMSEnrollPerPhone       = ratelimit.Rule{Name: "sms_enroll_phone", Limit: 5, Window: 10 * time.Minute}
	SMSEnrollPerPhoneHour   = ratelimit.Rule{Name: "sms_enroll_phone_hour", Limit: 10, Window: time.Hour}
	// Code checks, counted first (ratelimit.Guard). Every SMS check
	// counts against the member and the address; failed TOTP and
	// recovery-code checks lock the member out (user_lock_limit_reached)
	// after FailuresPerMember.Limit misses, for Lock; successes cost
	// nothing. Mid-login an IST allows AttemptsPerIST authenticator- and
	// recovery-code checks in all (istCap).
	SMSCheckPerMember = ratelimit.Rule{Name: "sms_check_member", Limit: 15, Window: 10 * time.Minute}
	SMSCheckPerIP     = ratelimit.Rule{Name: "sms_check_ip", Limit: 100, Window: 10 * time.Minute, PerClientAddress: true}
	FailuresPerMember = ratelimit.Rule{Name: "mfa_fail_member", Limit: 10, Window: 10 * time.Minute,
		Lock: 10 * time.Minute, Refuse: apierr.UserLockLimitReached, OnSuccess: ratelimit.Release}
	FailuresPerIP  = ratelimit.Rule{Name: "mfa_fail_ip", Limit: 100, Window: 10 * time.Minute, OnSuccess: ratelimit.Release, PerClientAddress: true}
	AttemptsPerIST = ratelimit.Rule{Name: "mfa_ist", Limit: 5, Window: time.Hour, Refuse: apierr.UserLockLimitReached}
	// Creating TOTP registrations and rotating recovery codes write rows;
	// bound them so a client cannot fill the tables.
	WritesPerMember = ratelimit.Rule{Name: "mfa_write_member", Limit: 20, Window: 10 * time.Minute}
)

var codePattern = regexp.MustCompile(`^[0-9]{6}$`)

// set_mfa_enrollment values.
const (
	Enroll   = "enroll"
	Unenroll = "unenroll"
)
