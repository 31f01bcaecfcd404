package app

import (
	"time"

	"github.com/latchkey/latchkey/internal/sweeper"
)

// Retention of rows that outlive their use, past their expiry (or
// creation, for logs). Documented in the README's retention table.
const (
	expiredGrace  = 24 * time.Hour     // one-time secrets and sessions, past expires_at
	outboxKeep    = 7 * 24 * time.Hour // dev mailbox captures
	rateLimitKeep = 24 * time.Hour     // finished rate-limit windows and attempt counters
	ticketKeep    = time.Hour          // browser-flow tickets, past expires_at
)

// Sweeper returns the sweeper of every table that grows with traffic: the
// core ones here, and each module's through an optional
// `Sweeps() []sweeper.Sweepable` method.
func (a *App) Sweeper() *sweeper.Sweeper {
	expired := func(table, key string) sweeper.Sweepable {
		return sweeper.Expired{DB: a.DB, Table: table, Key: key, Column: "expires_at", Keep: expiredGrace}
	}
	items := []sweeper.Sweepable{
		expired("member_sessions", "member_session_id"),
		expired("intermediate_sessions", "intermediate_session_id"),
		expired("magic_links", "magic_link_id"),
		expired("email_otps", "email_otp_id"),
		expired("discovery_magic_links", "discovery_magic_link_id"),
		expired("discovery_email_otps", "discovery_email_otp_id"),
		expired("sms_otps", "sms_otp_id"),
		expired("email_update_otps", "email_update_otp_id"),
		sweeper.Expired{DB: a.DB, Table: "totp_registrations", Key: "totp_registration_id", Column: "expires_at",
			Keep: expiredGrace, Where: "verified_at IS NULL"}, // pending enrollments only
		sweeper.Expired{DB: a.DB, Table: "events", Key: "event_id", Column: "created_at", Keep: a.Config.EventsRetention},
		sweeper.Expired{DB: a.DB, Table: "audit_events", Key: "event_id", Column: "created_at", Keep: a.Config.AuditRetention},
		sweeper.Expired{DB: a.DB, Table: "dev_outbox", Key: "message_id", Column: "created_at", Keep: outboxKeep},
	}
	items = append(items, a.passwords.Sweeps(expiredGrace)...)
	items = append(items, a.Limiter.Sweeps(rateLimitKeep)...)
	items = append(items, a.Flows.Sweeps(ticketKeep)...)
	// Not an expiry: organizations an older replica wrote during a rolling
	// deploy, whose folded names are folded again (organization.FoldNames).
	items = append(items, a.Orgs.Sweeps()...)
	if a.MailQueue != nil {
		items = append(items, a.MailQueue.Sweeps()...)
	}
	for _, m := range a.modules {
		if s, ok := m.(interface{ Sweeps() []sweeper.Sweepable }); ok {
			items = append(items, s.Sweeps()...)
		}
	}
	return sweeper.New(a.Clock, a.Log, items...)
}
