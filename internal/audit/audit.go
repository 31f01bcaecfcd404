// Package audit records security events in the audit_events table: logins
// and their failures, lockouts, factor changes (TOTP, phone, password,
// recovery codes, email), signing-key and secret rotation (the project's,
// and M2M clients' and connected apps' secrets), failed client
// authentications at the OAuth endpoints, member impersonation, and
// configuration changes made with the CLI or through the API. Any package
// records through a *Log; the HTTP layer records the login, factor-change
// and admin-change routes of every module by itself (see app/audit.go),
// and `latchkey audit --project ID` prints the log.
//
// An event never holds a secret: no token, code, password or key material,
// only who, what, the outcome, and where the request came from.
package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
)

// Event types.
const (
	Login             = "login"               // an authentication attempt (Outcome says how it went)
	Lockout           = "lockout"             // an attempt refused by a lockout or attempt limit
	FactorChange      = "factor_change"       // an authentication factor added, removed or replaced
	SigningKeyRotated = "signing_key_rotated" // keys rotate
	SigningKeyRetired = "signing_key_retired" // keys retire
	// A secret was issued (project rotate-secret; an M2M client's or a
	// connected app's secret, or a SCIM connection's bearer token, at
	// create or rotation start) or stopped being valid (project
	// retire-secret; a client's at rotation complete or cancel, or
	// deletion). Method names the client's step (clientsecret.Record).
	SecretRotated = "secret_rotated"
	SecretRetired = "secret_retired"
	// An operator minted an impersonation token (member impersonate), and
	// it was redeemed for a session; both name the impersonator.
	ImpersonationTokenCreated = "impersonation_token_created"
	MemberImpersonated        = "member_impersonated"
	// An organization's identity provider changed its members or groups
	// through the SCIM API (Method names the change: user_created...).
	SCIMProvisioning = "scim_provisioning"
	// A deleted member whose address was never verified was removed for
	// good, its address taken by a new member an admin invited or created
	// (details.replaced_by); the event is what remains of the old id.
	MemberPurged = "member_purged"
	// An operator changed a project's configuration with the CLI (actor
	// "cli"): Method names the command (add-origin, oauth, rbac set...),
	// Details what changed, never a secret value.
	ConfigChanged = "config_changed"
	// A security-relevant change made through the API (backend or SDK
	// face): an organization's settings, a member, sessions revoked, SSO
	// and SCIM connections, custom roles, machine clients and connected
	// apps. Method names the change (organization_updated...), the ids
	// the object changed; details.actor_member_id the member whose
	// session made it, details.fields the names (never the values) of
	// the fields the request sent.
	AdminChange = "admin_change"
)

// Types lists every event type, for the CLI's `audit --type` (an unknown
// type is refused there rather than answered with nothing). A test keeps it
// in step with the constants above.
var Types = []string{Login, Lockout, FactorChange, SigningKeyRotated, SigningKeyRetired, SecretRotated, SecretRetired,
	ImpersonationTokenCreated, MemberImpersonated, SCIMProvisioning, MemberPurged, ConfigChanged, AdminChange}

// Outcomes.
const (
	Success = "success"
	Failure = "failure"
)

// Event is one security event.
type Event struct {
	ID             string         `json:"event_id"`
	ProjectID      string         `json:"project_id"`
	CreatedAt      time.Time      `json:"created_at"`
	Type           string         `json:"event_type"`
	Outcome        string         `json:"outcome"`
	Method         string         `json:"method,omitempty"` // magic_link, password, totp, oauth...
	OrganizationID string         `json:"organization_id,omitempty"`
	MemberID       string         `json:"member_id,omitempty"`
	Actor          string         `json:"actor,omitempty"` // "cli", "backend", "sdk"
	IP             string         `json:"ip,omitempty"`
	UserAgent      string         `json:"user_agent,omitempty"`
	RequestID      string         `json:"request_id,omitempty"`
	Details        map[string]any `json:"details,omitempty"`
}

// InTx files events inside the caller's transaction, so an event and the
// change it records commit together or not at all. Log is one; modules
// hold this instead, and a nil one records nothing.
type InTx interface {
	RecordIn(ctx context.Context, q store.Querier, e Event) error
}

// Log writes and reads audit events.
type Log struct {
	db    *store.DB
	clock clock.Clock
	batch batcher
}

// New returns a log on db.
func New(db *store.DB, c clock.Clock) *Log { return &Log{db: db, clock: c} }

// RecordIn is Record inside the caller's transaction q (on SQLite a write
// outside an open transaction would wait for the one writer connection).
func (l *Log) RecordIn(ctx context.Context, q store.Querier, e Event) error {
	if err := e.check(); err != nil {
		return err
	}
	if e.Outcome == "" {
		e.Outcome = Success
	}
	details := []byte("{}")
	if len(e.Details) > 0 {
		var err error
		if details, err = json.Marshal(cleanDetails(e.Details)); err != nil {
			return fmt.Errorf("audit: details: %w", err)
		}
	}
	env := ids.Test
	if strings.Contains(e.ProjectID, "-live-") {
		env = ids.Live
	}
	_, err := q.ExecContext(ctx, `INSERT INTO audit_events (event_id, project_id, created_at, event_type, outcome, method,
		organization_id, member_id, actor, ip, user_agent, request_id, details) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`,
		ids.New("audit-event", env), Text(e.ProjectID), store.Millis(l.clock.Now()), Text(e.Type), Text(e.Outcome),
		Text(e.Method), Text(e.OrganizationID), Text(e.MemberID), Text(e.Actor), Clip(e.IP, 64), Clip(e.UserAgent, 256),
		Text(e.RequestID), string(details))
	if err != nil {
		return fmt.Errorf("audit: record %s: %w", e.Type, err)
	}
	return nil
}

// Clip is Text cut to at most n bytes, on a character boundary: what a
// caller sent (an address, a user agent, a client id) is kept in an event
// only up to a length no honest value reaches.
func Clip(s string, n int) string {
	s = Text(s)
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// Text is s as the log can store it: valid UTF-8 (each run of bad bytes
// becomes U+FFFD) without NULs. PostgreSQL refuses either in a TEXT column,
// and much of an event is what a client sent (Go's server accepts header
// bytes 0x80-0xFF), so a refused INSERT would drop the event: a guesser
// could hide failed logins from the log with one odd User-Agent. The log
// cleans every text itself so that no caller can lose an event this way.
func Text(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s // the usual case, without a copy
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// cleanDetails is d with Text applied to its keys and string values, in
// nested maps and lists too. json.Marshal already writes valid UTF-8, but
// it keeps a NUL as \u0000, which a reader of the event would get back.
func cleanDetails(d map[string]any) map[string]any {
	out := make(map[string]any, len(d))
	for k, v := range d {
		out[Text(k)] = cleanValue(v)
	}
	return out
}

func cleanValue(v any) any {
	switch v := v.(type) {
	case string:
		return Text(v)
	case map[string]any:
		return cleanDetails(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = cleanValue(x)
		}
		return out
	case []string:
		out := make([]string, len(v))
		for i, x := range v {
			out[i] = Text(x)
		}
		return out
	}
	return v // numbers, booleans and the like hold no text
}

// Page sizes of List.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// ErrCursorNotFound is List's answer to a Before that names no event of
// the project.
var ErrCursorNotFound = errors.New("audit: no such event in this project")

// Filter selects events of one project. A listing is read page by page,
// newest first: each page passes the last event of the one before as
// Before, so no event is skipped or repeated, even among several filed in
// the same millisecond.
type Filter struct {
	ProjectID string
	Since     time.Time // zero: from the beginning
	Until     time.Time // zero: up to now; else only events strictly older
	Before    string    // an event id: only events listed after it (older, or as old with a smaller id)
	Type      string    // "" for every type
	Limit     int       // newest first; 0 is DefaultLimit, at most MaxLimit
}

// List returns the project's events, newest first. A limit above MaxLimit
// or below 0 is refused rather than quietly changed, so a caller never
// takes a cut page for the whole window.
func (l *Log) List(ctx context.Context, f Filter) ([]Event, error) {
	switch {
	case f.Limit == 0:
		f.Limit = DefaultLimit
	case f.Limit < 0 || f.Limit > MaxLimit:
		return nil, fmt.Errorf("audit: list: limit %d is outside 1 to %d", f.Limit, MaxLimit)
	}
	until := int64(math.MaxInt64)
	if !f.Until.IsZero() {
		until = store.Millis(f.Until)
	}
	// Without a cursor, the bound is (until, "") and the event_id test
	// never holds: created_at < until alone decides.
	beforeAt, beforeID := until, ""
	if f.Before != "" {
		err := l.db.Read().QueryRowContext(ctx, `SELECT created_at FROM audit_events WHERE project_id = $1 AND event_id = $2`,
			f.ProjectID, f.Before).Scan(&beforeAt)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("audit: list: event %s: %w", f.Before, ErrCursorNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("audit: list: cursor: %w", err)
		}
		beforeID = f.Before
	}
	rows, err := l.db.Read().QueryContext(ctx, `SELECT event_id, project_id, created_at, event_type, outcome, method,
		organization_id, member_id, actor, ip, user_agent, request_id, details FROM audit_events
		WHERE project_id = $1 AND created_at >= $2 AND ($3 = '' OR event_type = $3) AND created_at < $5
		AND (created_at < $6 OR (created_at = $6 AND event_id < $7))
		ORDER BY created_at DESC, event_id DESC LIMIT $4`, f.ProjectID, store.Millis(f.Since), f.Type, f.Limit,
		until, beforeAt, beforeID)
	if err != nil {
		return nil, fmt.Errorf("audit: list: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var at int64
		var details string
		if err := rows.Scan(&e.ID, &e.ProjectID, &at, &e.Type, &e.Outcome, &e.Method, &e.OrganizationID, &e.MemberID,
			&e.Actor, &e.IP, &e.UserAgent, &e.RequestID, &details); err != nil {
			return nil, fmt.Errorf("audit: list: %w", err)
		}
		e.CreatedAt = time.UnixMilli(at).UTC()
		if details != "{}" {
			_ = json.Unmarshal([]byte(details), &e.Details)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
