package organization

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/displaytext"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/metadata"
	"github.com/latchkey/latchkey/internal/store"
)

const memberColumns = `member_id, organization_id, project_id, email_id, email_address, email_address_verified, status,
	name, trusted_metadata, untrusted_metadata, is_breakglass, roles, member_password_id, created_at, updated_at`

// memberPasswordID derives member_password_id from the project's password
// for the member's address. The password feature keeps one password per
// address, shared by its memberships in every organization, so deriving it
// keeps it right for memberships created (or re-addressed) after the
// password was set; the stored column is left at its default.
const memberPasswordID = `COALESCE((SELECT mp.password_id FROM member_passwords mp
	WHERE mp.project_id = members.project_id AND mp.email_address = members.email_address), '')`

// memberEmailRoles reads the organization's email role assignments along
// with the member, so member.roles reports the email-granted roles.
const memberEmailRoles = `(SELECT o.rbac_email_implicit_role_assignments FROM organizations o
	WHERE o.organization_id = members.organization_id)`

// memberColumnsRead is what member reads select: the stored columns with
// member_password_id derived, plus the MFA enrollment columns and the
// external id, which inserts leave at their defaults (the MFA flows and
// member updates write them: mfa.go, member_fields.go), and the
// organization's email role assignments.
const memberColumnsRead = `member_id, organization_id, project_id, email_id, email_address, email_address_verified, status,
	name, trusted_metadata, untrusted_metadata, is_breakglass, roles, ` + memberPasswordID + `, created_at, updated_at,
	mfa_phone_number, mfa_phone_number_verified, mfa_enrolled, default_mfa_method, totp_registration_id, ` + memberEmailRoles + `, sso_registrations,
	external_id`

// memberSelect is memberColumnsRead plus the member's lock: the start of
// the earliest and the end of the latest lockout about the member's
// address (ratelimit.EmailSubject) that runs now, NULL when none does
// (is_locked, lock_created_at, lock_expires_at; see lockColumns). The
// time is a number formatted here, not user input. Frequent reads use
// memberSelectAt instead, whose text stays the same (so SQLite keeps it
// prepared, see store).
//
// The lock is as of the read, and one reader keeps it: the session check
// answers from its in-memory copy of the member (session's hotCache, and
// the encoded answers built from it), so the lock fields of its backend
// answer (the SDK face does not carry them) are the ones of when that
// copy was loaded. Unlike every other member field, nothing drops the copy
// when they change: attempt_counters is not a change-feed watch (its rows
// are rate-limit buckets, written on every counted attempt), and a lock
// ends by time passing locked_until, which no write records. A lock
// that begins or ends after the load therefore shows in session checks
// when the copy is reloaded: at most session.cacheTTL (one minute) after
// the load, sooner if the member, its organization or its project changes
// or the feed restarts. Computing it per check instead would add this
// query to a hot path that otherwise runs no SQL. Every other member read
// (get, search, discovery, logins) selects it fresh.
func (s *Store) memberSelect() string {
	return memberColumnsRead + lockColumns(strconv.FormatInt(store.Millis(s.clock.Now()), 10))
}

// memberSelectAt is memberSelect with the time as parameter $n: pass
// store.Millis(s.clock.Now()) there.
func memberSelectAt(n int) string { return memberColumnsRead + lockColumns(fmt.Sprintf("$%d", n)) }

// lockColumns selects the running locks' earliest start and latest end,
// now being the SQL for the current time. Every lock they span runs now,
// so the member is locked throughout. A start of 0 is not known (a lock
// older than attempt_counters.locked_at).
func lockColumns(now string) string {
	running := ` FROM attempt_counters ac
		WHERE ac.subject = members.project_id || '|' || members.email_address AND ac.locked_until > ` + now + `)`
	return `, (SELECT MIN(ac.locked_at)` + running + `, (SELECT MAX(ac.locked_until)` + running
}

var (
	selectMemberByID    = `SELECT ` + memberSelectAt(3) + ` FROM members WHERE member_id = $1 AND project_id = $2`
	selectMemberByEmail = `SELECT ` + memberSelectAt(3) + ` FROM members WHERE organization_id = $1 AND email_address = $2`
)

func scanMember(row interface{ Scan(...any) error }) (*Member, error) {
	var m Member
	var trusted, untrusted, roles, emailRoles, ssoRegs string
	var created, updated int64
	var lockedAt, lockedUntil sql.NullInt64
	if err := row.Scan(&m.MemberID, &m.OrganizationID, &m.projectID, &m.EmailID, &m.EmailAddress, &m.EmailAddressVerified,
		&m.Status, &m.Name, &trusted, &untrusted, &m.IsBreakglass, &roles, &m.MemberPasswordID, &created, &updated,
		&m.MFAPhoneNumber, &m.MFAPhoneNumberVerified, &m.MFAEnrolled, &m.DefaultMFAMethod, &m.TOTPRegistrationID, &emailRoles, &ssoRegs,
		&m.ExternalID, &lockedAt, &lockedUntil); err != nil {
		return nil, store.MapError(err)
	}
	if lockedUntil.Valid {
		m.IsLocked = true
		end := store.Time(lockedUntil.Int64)
		m.LockExpiresAt = &end
		if lockedAt.Int64 > 0 {
			start := store.Time(lockedAt.Int64)
			m.LockCreatedAt = &start
		}
	}
	for _, c := range []struct {
		text string
		dst  any
	}{{trusted, &m.TrustedMetadata}, {untrusted, &m.UntrustedMetadata}, {roles, &m.explicit}, {emailRoles, &m.emailAssignments}} {
		if err := json.Unmarshal([]byte(c.text), c.dst); err != nil {
			return nil, fmt.Errorf("decode member column: %w", err)
		}
	}
	if err := json.Unmarshal([]byte(ssoRegs), &m.SSORegistrations); err != nil {
		return nil, fmt.Errorf("decode sso_registrations: %w", err)
	}
	if m.SSORegistrations == nil {
		m.SSORegistrations = []SSORegistration{}
	}
	m.CreatedAt, m.UpdatedAt = store.Time(created), store.Time(updated)
	m.RetiredEmailAddresses, m.OAuthRegistrations = []RetiredEmail{}, []any{}
	m.computeRoles(m.emailAssignments)
	return &m, nil
}

// Member loads a member of an organization of the project.
func (s *Store) Member(ctx context.Context, q store.Querier, projectID, memberID string) (*Member, error) {
	m, err := scanMember(q.QueryRowContext(ctx, selectMemberByID, memberID, projectID, store.Millis(s.clock.Now())))
	if err != nil {
		return nil, fmt.Errorf("organization: member %s: %w", memberID, err)
	}
	return m, s.decorate(ctx, q, m)
}

// MemberByEmail loads the member with a (normalised) email in an organization.
func (s *Store) MemberByEmail(ctx context.Context, q store.Querier, orgID, email string) (*Member, error) {
	m, err := scanMember(q.QueryRowContext(ctx, selectMemberByEmail, orgID, email, store.Millis(s.clock.Now())))
	if err != nil {
		return nil, fmt.Errorf("organization: member by email: %w", err)
	}
	return m, s.decorate(ctx, q, m)
}

// AddressHeldElsewhere reports whether a member of an organization of the
// project other than orgID, whatever its status, has the (normalised)
// address email. What belongs to an address rather than to a member (its
// password) serves those members too.
func (s *Store) AddressHeldElsewhere(ctx context.Context, q store.Querier, projectID, orgID, email string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM members WHERE project_id = $1 AND email_address = $2
		AND organization_id <> $3 LIMIT 1`, projectID, email, orgID).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("organization: address held elsewhere: %w", err)
	}
	return true, nil
}

// LockMember reads a member's address and status inside the transaction q
// and keeps the row from changing until q ends, so that what q writes on
// the strength of them commits before any change of the member starts, or
// sees that change. On PostgreSQL that is a share lock (FOR SHARE): an
// address change or deletion updates the row, so it waits for q, and a
// read made while one is in flight waits for it and returns the row as it
// committed. Concurrent logins of one member share the lock. SQLite has a
// single writer: a read inside the write transaction is already current
// and nothing can change the row before q commits.
func (s *Store) LockMember(ctx context.Context, q store.Querier, projectID, memberID string) (email, status string, err error) {
	query := `SELECT email_address, status FROM members WHERE member_id = $1 AND project_id = $2`
	if s.db.Dialect() == store.Postgres {
		query += ` FOR SHARE`
	}
	if err := q.QueryRowContext(ctx, query, memberID, projectID).Scan(&email, &status); err != nil {
		return "", "", fmt.Errorf("organization: lock member %s: %w", memberID, store.MapError(err))
	}
	return email, status, nil
}

// lockMemberForUpdate locks, inside the write transaction q, a member's
// row for a change that reads the row and writes fields back from what it
// read (store.DB.LockRow): on PostgreSQL the read would otherwise be taken
// without a lock, and a change committed after it overwritten with the
// fields as read.
//
// A member that is not there locks nothing and is left to the caller's
// read, which answers it in its own words (member_not_found).
func (s *Store) lockMemberForUpdate(ctx context.Context, q store.Querier, memberID string) error {
	if err := s.db.LockRow(ctx, q, "members", "member_id", memberID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// HoldMemberToSpend locks, inside q, the row of the member a one-time
// secret names (a login link or code, a reset link, an email-update link
// or code) before the statement that locks the secret's row. An address
// change updates the member's row and then spends the member's secrets
// (AddressHolder); a login that spent its secret first and locked the
// member after (MarkEmailVerified, ChangeEmail, session.Complete) would,
// on PostgreSQL, deadlock with a change landing between the two, to be
// broken after deadlock_timeout and retried. Held first, the member's row
// makes one wait for the other instead.
//
// The lock is the one the update the login makes next takes (FOR NO KEY
// UPDATE, lockMemberForUpdate), not LockMember's share lock: two logins
// of one member each holding a share lock would deadlock upgrading it.
// A missing member locks nothing and is left to the caller's read. SQLite
// (one writer) takes no lock.
func (s *Store) HoldMemberToSpend(ctx context.Context, q store.Querier, memberID string) error {
	return s.lockMemberForUpdate(ctx, q, memberID)
}

// MemberForUpdate is Member for a change written back from the read (the
// MFA fields, SaveMFA): the row is locked first (lockMemberForUpdate).
func (s *Store) MemberForUpdate(ctx context.Context, q store.Querier, projectID, memberID string) (*Member, error) {
	if err := s.lockMemberForUpdate(ctx, q, memberID); err != nil {
		return nil, err
	}
	return s.Member(ctx, q, projectID, memberID)
}

// orgMemberForUpdate is OrgMember for a change written back from the read
// (lockMemberForUpdate).
func (s *Store) orgMemberForUpdate(ctx context.Context, q store.Querier, org *Organization, memberID string) (*Member, error) {
	if err := s.lockMemberForUpdate(ctx, q, memberID); err != nil {
		return nil, err
	}
	return s.OrgMember(ctx, q, org, memberID)
}

// NewMember describes a member to create.
type NewMember struct {
	Email             string
	Name              string
	Status            string
	TrustedMetadata   map[string]any
	UntrustedMetadata map[string]any
	IsBreakglass      bool
	Roles             []string // explicitly assigned; stytch_member is implied
}

// MaxNameLength bounds a member's name, in characters (a name in a
// non-Latin script is not held to a third of the limit), on creation and
// update alike: a name accepted at creation must survive being sent back
// unchanged in a later update.
const MaxNameLength = 256

// CheckName trims a member name and refuses one over MaxNameLength or
// holding control or bidirectional formatting characters, as organization
// names are refused (the name is shown to others: an invitation's
// sender). A name with nothing visible is no name, as a blank one is. The
// catalogue has no type of its own for a member name: invalid_request
// naming the field.
func CheckName(name string) (string, error) {
	name, why := displaytext.Line("name", name, MaxNameLength)
	if why != "" {
		return "", apierr.Invalid("name", why)
	}
	return name, nil
}

// TruncateName turns control characters in name into spaces (tabs,
// newlines) or drops them (the rest), drops bidirectional formatting
// characters, trims it and cuts it to MaxNameLength characters; nothing
// visible left is no name: for a name an identity provider sends (a JIT
// signup, SCIM), which the person cannot change here and must not make a
// login or a provisioning fail.
func TruncateName(name string) string {
	name = strings.TrimSpace(displaytext.Clean(strings.Map(func(r rune) rune {
		switch {
		case !unicode.IsControl(r):
			return r
		case unicode.IsSpace(r):
			return ' '
		}
		return -1
	}, name)))
	if utf8.RuneCountInString(name) <= MaxNameLength {
		return name
	}
	return strings.TrimSpace(string([]rune(name)[:MaxNameLength]))
}

// CreateMember inserts a member into org. email must be normalised. An
// address already a member's is duplicate_member_email, except a deleted
// member's: one whose address was never verified is replaced by the new
// member, as an invite replaces it (memberForAdmin), and any other is
// inactive_member (reactivate them instead).
func (s *Store) CreateMember(ctx context.Context, q store.Querier, org *Organization, env ids.Env, nm NewMember) (*Member, error) {
	_, purged, err := s.memberForAdmin(ctx, q, org, nm.Email, "creating")
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	// A member found otherwise makes the insert duplicate_member_email.
	m, _, err := s.insertMember(ctx, q, org, env, nm, false)
	if err != nil || purged == "" {
		return m, err
	}
	return m, s.recordPurge(ctx, q, org, purged, m)
}

// ProvisionMember is CreateMember for a login or signup that found no
// member with the address and admits a new one (just-in-time
// provisioning), and for a password import (passwords/migrate), which
// creates the member it finds none for. When a concurrent creation of the
// same address (a double click, two tabs, an import retried) committed
// the member first, it returns that member with created false, as if
// this call had come second; a deleted one is inactive_member, as a
// lookup finding it answers. On PostgreSQL both calls find no member; the
// insert waits for the other transaction and then skips the row (ON
// CONFLICT DO NOTHING) rather than failing, which would abort this
// transaction.
//
// A name over MaxNameLength is cut to it rather than refused: the names
// JIT provisioning gets come from identity providers, and a login must not
// fail over a name the person cannot change here (an API call that names
// a member, passwords/migrate among them, checks it first with CheckName).
func (s *Store) ProvisionMember(ctx context.Context, q store.Querier, org *Organization, env ids.Env, nm NewMember) (
	m *Member, created bool, err error) {
	nm.Name = TruncateName(nm.Name)
	if m, created, err = s.insertMember(ctx, q, org, env, nm, true); err != nil || created {
		return m, created, err
	}
	if m, err = s.MemberByEmail(ctx, q, org.OrganizationID, nm.Email); err != nil {
		return nil, false, err
	}
	if m.Status == StatusDeleted {
		return nil, false, apierr.New(apierr.InactiveMember)
	}
	return m, false, nil
}

// insertMember inserts nm into org and returns it, with true.
// With skipTaken, an address already a member's inserts nothing (nil,
// false); otherwise it is duplicate_member_email.
func (s *Store) insertMember(ctx context.Context, q store.Querier, org *Organization, env ids.Env, nm NewMember,
	skipTaken bool) (*Member, bool, error) {
	// Every creation path (the member routes, invites, SCIM, JIT
	// provisioning) comes through here, so the name limit holds for all.
	var err error
	if nm.Name, err = CheckName(nm.Name); err != nil {
		return nil, false, err
	}
	// A new member's metadata is the given objects without their null
	// keys, within the limits (metadata.Merge into nothing).
	if nm.TrustedMetadata, err = metadata.Merge("trusted_metadata", nil, nm.TrustedMetadata); err != nil {
		return nil, false, err
	}
	if nm.UntrustedMetadata, err = metadata.Merge("untrusted_metadata", nil, nm.UntrustedMetadata); err != nil {
		return nil, false, err
	}
	if err := s.refuseRetired(ctx, q, org.OrganizationID, nm.Email, ""); err != nil {
		return nil, false, err
	}
	roles, err := cleanExplicit(nm.Roles)
	if err != nil {
		return nil, false, err
	}
	if err := s.CheckRoles(ctx, q, org, "roles", roles); err != nil {
		return nil, false, err
	}
	id := ids.New("member", env)
	now := store.Millis(s.clock.Now())
	insert := `INSERT INTO members (` + memberColumns + `) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15)`
	if skipTaken {
		insert += ` ON CONFLICT (organization_id, email_address) DO NOTHING`
	}
	res, err := q.ExecContext(ctx, insert,
		id, org.OrganizationID, org.projectID, ids.New("email", env), nm.Email, false, nm.Status, nm.Name,
		mustJSON(nm.TrustedMetadata), mustJSON(nm.UntrustedMetadata), nm.IsBreakglass, mustJSON(roles), "", now, now)
	switch err := store.MapError(err); {
	case errors.Is(err, store.ErrConflict):
		return nil, false, apierr.Wrap(apierr.DuplicateMemberEmail, err)
	case errors.Is(err, store.ErrParentGone):
		// The organization was deleted after the caller read it (its
		// deletion committed while this insert waited, or held SQLite's
		// writer while the caller read): answered as it would be a
		// moment later.
		return nil, false, apierr.Wrap(apierr.OrganizationNotFound, err)
	case err != nil:
		return nil, false, fmt.Errorf("organization: create member: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return nil, false, fmt.Errorf("organization: create member: %w", err)
	}
	if n == 0 {
		return nil, false, nil
	}
	if err := s.refuseRetiredAfterInsert(ctx, q, org, id, nm.Email); err != nil {
		return nil, false, err
	}
	m, err := s.Member(ctx, q, org.projectID, id)
	return m, err == nil, err
}

// MemberForEmailLogin returns the member an email login-or-signup is for:
// the existing member, or a new pending one when the organization's email
// JIT policy lets this address join. created reports the latter. Deleted
// members cannot log in until reactivated.
func (s *Store) MemberForEmailLogin(ctx context.Context, org *Organization, env ids.Env, email string) (m *Member, created bool, err error) {
	err = s.db.Tx(ctx, func(q store.Querier) error {
		m, created, err = s.MemberForEmailLoginIn(ctx, q, org, env, email)
		return err
	})
	return m, created, err
}

// MemberForEmailLoginIn is MemberForEmailLogin inside the caller's
// transaction q, so a send can create the member, count its limits, store
// its code and queue its email in one short transaction.
func (s *Store) MemberForEmailLoginIn(ctx context.Context, q store.Querier, org *Organization, env ids.Env, email string) (*Member, bool, error) {
	m, err := s.MemberByEmail(ctx, q, org.OrganizationID, email)
	switch {
	case err == nil:
		if m.Status == StatusDeleted {
			return nil, false, apierr.New(apierr.InactiveMember)
		}
		return m, false, nil
	case !errors.Is(err, store.ErrNotFound):
		return nil, false, err
	}
	if err := org.CheckEmailJIT(email); err != nil {
		return nil, false, err
	}
	return s.ProvisionMember(ctx, q, org, env, NewMember{Email: email, Status: StatusPending})
}

// MarkEmailVerified records that the member proved control of their email:
// the address becomes verified (and proven, see MarkEmailAsserted) and a
// pending or invited member becomes active. It runs inside the caller's
// login transaction. Every path that verifies an address at a login comes
// here or to MarkEmailAsserted, so this is where a first proof ends what
// was let in without one (UnprovenAccess).
//
// ended reports that it did: the member's sessions and logins in progress
// ended with it, inside q (MemberAccessEnder), and the login passes it on
// as session.CompleteParams.SessionsEnded, so that its answer says
// reset_sessions where its wire has the field.
func (s *Store) MarkEmailVerified(ctx context.Context, q store.Querier, m *Member) (ended bool, err error) {
	return s.markVerified(ctx, q, m, true)
}

// MarkEmailAsserted is MarkEmailVerified for an address the organization's
// own SSO identity provider asserted: verified for the organization (the
// wire's email_address_verified, activation, UnprovenAccess), but not
// proven (email_address_proven). The organization's admin runs that
// provider and it may assert any address, so the organization cannot
// vouch for itself with it when discovery asks whether someone at a domain
// belongs there (JoinableByDomain).
func (s *Store) MarkEmailAsserted(ctx context.Context, q store.Querier, m *Member) (ended bool, err error) {
	return s.markVerified(ctx, q, m, false)
}

func (s *Store) markVerified(ctx context.Context, q store.Querier, m *Member, proven bool) (bool, error) {
	first := false
	if !m.EmailAddressVerified {
		// The conditional update tells which of two concurrent logins
		// verified the address (the other waits for the row, then finds
		// it verified). A member read as verified is not looked at again:
		// had the address changed since, the new one would be unverified,
		// and the OAuth login checks that case itself.
		res, err := q.ExecContext(ctx, `UPDATE members SET email_address_verified = $1
			WHERE member_id = $2 AND email_address_verified = $3`, true, m.MemberID, false)
		if err != nil {
			return false, fmt.Errorf("organization: verify email: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return false, fmt.Errorf("organization: verify email: %w", err)
		}
		first = n == 1
	}
	// A proof sets email_address_proven; an assertion leaves it as it was
	// (a proof earlier stands).
	_, err := q.ExecContext(ctx, `UPDATE members SET email_address_verified = $1,
		email_address_proven = (email_address_proven OR $2),
		status = CASE WHEN status IN ('pending', 'invited') THEN 'active' ELSE status END, updated_at = $3
		WHERE member_id = $4`, true, proven, store.Millis(s.clock.Now()), m.MemberID)
	if err != nil {
		return false, fmt.Errorf("organization: verify email: %w", err)
	}
	m.EmailAddressVerified = true
	// The address's email-domain roles count from now on
	// (computeRoles): the session this login issues carries them.
	m.computeRoles(m.emailAssignments)
	if m.Status == StatusPending || m.Status == StatusInvited {
		m.Status = StatusActive
	}
	if !first {
		return false, nil
	}
	return s.addressVerified(ctx, q, m)
}

// LoadForEmailLogin validates the email, loads the project's organization
// and resolves the member an email login-or-signup is for (see
// MemberForEmailLogin). Magic links and email OTP share it so both apply
// the same JIT rules.
func (s *Store) LoadForEmailLogin(ctx context.Context, projectID string, env ids.Env, orgID, rawEmail string) (*Organization, *Member, bool, error) {
	org, email, err := s.EmailLoginTarget(ctx, projectID, orgID, rawEmail)
	if err != nil {
		return nil, nil, false, err
	}
	m, created, err := s.MemberForEmailLogin(ctx, org, env, email)
	if err != nil {
		return nil, nil, false, err
	}
	return org, m, created, nil
}

// EmailLoginTarget is the read-only first half of LoadForEmailLogin: it
// validates the email (returned normalised) and loads the organization
// (from the cache when UseCache gave one), without touching the writer.
func (s *Store) EmailLoginTarget(ctx context.Context, projectID, orgID, rawEmail string) (*Organization, string, error) {
	email, err := emailaddr.Normalize(rawEmail)
	if err != nil {
		return nil, "", err
	}
	if strings.TrimSpace(orgID) == "" {
		return nil, "", apierr.Invalid("organization_id", "organization_id is required.")
	}
	get := s.Get
	if s.cached != nil {
		get = s.cached.Organization
	}
	org, err := get(ctx, projectID, orgID)
	if err != nil {
		return nil, "", NotFound(err, apierr.OrganizationNotFound)
	}
	return org, email, nil
}
