package mfa

import (
	"context"
	"slices"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/locale"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/phone"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Policy is the session.MFAPolicy: after a primary authentication,
// session.Complete asks it whether the member must present a second factor.
type Policy struct{ s *Service }

// Policy returns the service's MFA policy, for session.SetMFAPolicy.
func (s *Service) Policy() *Policy { return &Policy{s: s} }

var _ session.MFAPolicy = (*Policy)(nil)

// Required decides, inside the login transaction q: MFA is needed when the
// organization requires it of everyone or the member opted in
// (mfa_enrolled). member_options lists the member's verified factors (null
// when there are none: the client then offers enrollment). When the
// member's default method is SMS, the organization allows SMS and a code
// can be sent now (rate limits), it is stored inside q, delivered after the
// commit, and secondary_auth_initiated says so, sparing the member a click.
func (pl *Policy) Required(ctx context.Context, q store.Querier, p *project.Project, org *organization.Organization,
	m *organization.Member, _ []session.Factor) (*session.MFARequired, error) {
	out := pl.Preview(org, m)
	if out == nil {
		return nil, nil
	}
	if m.DefaultMFAMethod == organization.MFAMethodSMS && out.MemberOptions != nil && out.MemberOptions.MFAPhoneNumber != "" &&
		org.AllowsMFAMethodFor(m, organization.MFAMethodSMS) && pl.s.autoSendSMS(ctx, q, p, org, m) == nil {
		initiated := organization.MFAMethodSMS
		out.SecondaryAuthInitiated = &initiated
	}
	return out, nil
}

// Preview is Required without side effects (never sends an SMS), for
// answers that only describe a login, such as discovered organizations.
func (pl *Policy) Preview(org *organization.Organization, m *organization.Member) *session.MFARequired {
	if org.MFAPolicy != organization.MFARequiredForAll && !m.MFAEnrolled {
		return nil
	}
	out := &session.MFARequired{}
	enrolled := m.EnrolledMFAMethods()
	if len(enrolled) > 0 {
		opts := &session.MFAMemberOptions{TOTPRegistrationID: m.TOTPRegistrationID}
		if slices.Contains(enrolled, organization.MFAMethodSMS) {
			opts.MFAPhoneNumber = m.MFAPhoneNumber
		}
		out.MemberOptions = opts
	}
	return out
}

// autoSendSMS starts a code to the member's enrolled number from inside
// the login transaction: the rate limits count and the code row is written
// through q; delivery runs after the commit.
func (s *Service) autoSendSMS(ctx context.Context, q store.Querier, p *project.Project, org *organization.Organization,
	m *organization.Member) error {
	to := m.MFAPhoneNumber
	if err := phone.Sendable(to); err != nil {
		return err
	}
	// The client's address too, as SendSMS counts it: a login's code is
	// a send like any other, and someone holding many members' first
	// factors must not send texts past the address's limit.
	limits := smsSendLimits(p.ID, httpapi.ClientIPFrom(ctx), m.MemberID, to, true)
	for _, k := range limits {
		if err := s.d.Limiter.AllowIn(ctx, q, k.Rule, k.Key); err != nil {
			return err
		}
	}
	code, err := s.issueSMSCode(ctx, q, p, org, m, to)
	if err != nil {
		return err
	}
	// Deliver after the login commits: a slow gateway must not hold the
	// database writer. If delivery then fails, the member is on the code
	// screen and can ask for another code, which reports the problem. The
	// login's answer has been decided, so no one else will see this error:
	// it is logged here, with the number masked as the API shows it and
	// never the code (the gateway's error quotes neither, see
	// notify.GatewayError).
	store.AfterCommit(q, func() {
		dctx := context.WithoutCancel(ctx)
		if err := s.deliverSMS(dctx, nil, p, org, to, code, locale.From(ctx)); err != nil {
			s.smsCodes.Retire(dctx, s.d.DB, p.ID, m.MemberID)
			httpapi.Logger(dctx).Warn("mfa: the login's SMS code was not delivered; code retired",
				"request_id", httpapi.RequestID(dctx), "project_id", p.ID, "organization_id", org.OrganizationID,
				"member_id", m.MemberID, "phone", organization.MaskPhone(to), "error", err.Error())
		}
	})
	return nil
}

// smsSendLimits are the buckets one SMS send counts against, the client's
// address first (when the request has one), for SendSMS and for the code
// a login sends by itself alike. verified says to is the member's own
// verified number; otherwise the send is an enrolment and counts in the
// enrolment buckets, never in the number's verified-holder budget.
func smsSendLimits(projectID, ip, memberID, to string, verified bool) []ratelimit.Key {
	var ks []ratelimit.Key
	if ip != "" {
		ks = append(ks, ratelimit.For(SMSSendPerIP, projectID+"|"+ip))
	}
	ks = append(ks, ratelimit.For(SMSSendPerMember, memberID))
	if !verified {
		return append(ks, ratelimit.For(SMSEnrollPerMemberPhone, projectID+"|"+memberID+"|"+to),
			ratelimit.For(SMSEnrollPerPhone, projectID+"|"+to), ratelimit.For(SMSEnrollPerPhoneHour, projectID+"|"+to))
	}
	return append(ks, ratelimit.For(SMSSendPerPhone, projectID+"|"+to), ratelimit.For(SMSSendPerPhoneHour, projectID+"|"+to))
}
