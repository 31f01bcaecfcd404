package session

import (
	"slices"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
)

// An impersonated session is an operator acting as a member (package
// impersonation). As in the API family, it has exactly one factor, of type
// "impersonated", lives at most ImpersonatedMaxMinutes, and cannot be
// extended or stepped up. The rules live here, where sessions are made and
// extended, so no other path (an MFA step-up on the session, a refresh
// asking for a longer duration) can stretch an operator's visit.
const (
	ImpersonatedType       = "impersonated"
	ImpersonationDelivery  = "impersonation"
	ImpersonatedMaxMinutes = 60
)

// ImpersonatedFactor names the operator behind an impersonated session.
type ImpersonatedFactor struct {
	ImpersonatorID           string `json:"impersonator_id"`
	ImpersonatorEmailAddress string `json:"impersonator_email_address"`
}

// Impersonated reports whether f is an operator's impersonation.
func (f Factor) Impersonated() bool { return f.Type == ImpersonatedType }

// Impersonated reports whether the session is an operator's impersonation.
func (ms *MemberSession) Impersonated() bool {
	return slices.ContainsFunc(ms.AuthenticationFactors, Factor.Impersonated)
}

// checkImpersonated applies the rules to a session about to be created
// from factors: an impersonation stands alone (no factor joins it and it
// joins no other), and its duration is capped.
func checkImpersonated(p *CompleteParams, factors []Factor) error {
	if !slices.ContainsFunc(factors, Factor.Impersonated) {
		return nil
	}
	if len(factors) > 1 {
		return notWithImpersonation()
	}
	p.DurationMinutes = min(p.DurationMinutes, ImpersonatedMaxMinutes)
	return nil
}

func notWithImpersonation() error {
	return apierr.New(apierr.UnauthorizedAction).WithMessage(
		"An impersonated session cannot be combined with other factors: no factor can be added to it.")
}

// extendedExpiry is when a session checked at now with a requested
// duration expires: now+duration, but never later than an impersonated
// session already expires.
func extendedExpiry(ms *MemberSession, now time.Time, minutes int) time.Time {
	exp := now.Add(time.Duration(minutes) * time.Minute)
	if ms.Impersonated() && exp.After(ms.ExpiresAt) {
		return ms.ExpiresAt
	}
	return exp
}
