package app

import (
	"fmt"

	"github.com/latchkey/latchkey/internal/mfa"
	"github.com/latchkey/latchkey/internal/notify"
)

// wireMFA builds the MFA service and installs its policy in the session
// service, so every primary authentication consults it.
func (a *App) wireMFA() error {
	sms, err := a.buildSMS()
	if err != nil {
		return err
	}
	a.mfa = mfa.New(mfa.Deps{DB: a.DB, Clock: a.Clock, Orgs: a.Orgs, Sessions: a.Sessions, SMS: sms, Limiter: a.Limiter, Box: a.Box,
		Audit: a.Audit})
	a.Sessions.SetMFAPolicy(a.mfa.Policy())
	// A first proof of an address that ended unproven access (oauth) also
	// removes the member's MFA factors: whoever came in without the proof
	// may have enrolled them.
	a.Orgs.AddMemberAccessEnder(a.mfa.EndUnprovenFactors)
	return nil
}

// buildSMS sends through the configured gateway and, in dev mode, into the
// dev mailbox as well (buildMailer has created the outbox by then).
func (a *App) buildSMS() (notify.SMSSender, error) {
	var ss []notify.SMSSender
	if a.Config.SMSURL != "" {
		tw, err := notify.NewTwilio(a.Config.SMSURL, a.Config.SMSAccountSID, a.Config.SMSAuthToken, a.Config.SMSFrom, nil)
		if err != nil {
			return nil, fmt.Errorf("app: sms: %w", err)
		}
		ss = append(ss, a.Metrics.SMSSender("sms_gateway", tw))
	}
	if a.Outbox != nil {
		ss = append(ss, a.Outbox)
	}
	switch len(ss) {
	case 0:
		a.Log.Warn("no SMS delivery configured; SMS codes will fail until LATCHKEY_SMS_URL is set")
		return nil, nil
	case 1:
		return ss[0], nil
	default:
		return notify.FanoutSMS(ss...), nil
	}
}
