package organization

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/metadata"
	"github.com/latchkey/latchkey/internal/store"
)

// MemberUpdate holds the member fields an update may change; nil means
// "leave as is".
type MemberUpdate struct {
	Name              *string         `json:"name"`
	TrustedMetadata   *map[string]any `json:"trusted_metadata"`
	UntrustedMetadata *map[string]any `json:"untrusted_metadata"`
	IsBreakglass      *bool           `json:"is_breakglass"`
	EmailAddress      *string         `json:"email_address"`
	// Roles replaces the explicitly assigned roles; IsAdmin (Latchkey's
	// older spelling) adds or removes stytch_admin among them.
	Roles   *[]string `json:"roles"`
	IsAdmin *bool     `json:"is_admin"`
	MemberFields
	DefaultMFAMethod *string `json:"default_mfa_method"`
	// UnlinkEmail, with a changed email_address, frees the old address
	// instead of retiring it (RetiredEmail), so another member may take it.
	UnlinkEmail bool `json:"unlink_email"`
	// PreserveExistingSessions keeps the sessions a roles change would end
	// (endRoleSessions). It cannot keep them through an address change.
	PreserveExistingSessions bool `json:"preserve_existing_sessions"`
	// MFAPhoneVouched marks MFAPhoneNumber verified at once, a factor
	// without an SMS code: the project's backend attests that the member
	// owns it (passwords/migrate's set_phone_number_verified). Never read
	// from a request body: the member update routes have no such field.
	MFAPhoneVouched bool `json:"-"`
}

// explicitRoles applies the update's roles and is_admin to the member's
// current explicit roles; nil means no change. The two must not disagree.
func (u MemberUpdate) explicitRoles(current []string) ([]string, error) {
	if u.Roles == nil && u.IsAdmin == nil {
		return nil, nil
	}
	roles := current
	if u.Roles != nil {
		var err error
		if roles, err = cleanExplicit(*u.Roles); err != nil {
			return nil, err
		}
		if u.IsAdmin != nil && slices.Contains(roles, AdminRole) != *u.IsAdmin {
			return nil, apierr.Invalid("roles", "is_admin and roles disagree about stytch_admin.")
		}
	}
	if u.IsAdmin != nil {
		roles = slices.DeleteFunc(slices.Clone(roles), func(r string) bool { return r == AdminRole })
		if *u.IsAdmin {
			roles = append(roles, AdminRole)
		}
	}
	return roles, nil
}

// ForSelf keeps only what members may change about themselves from the
// browser (the SDK's self update): their name, untrusted metadata, MFA
// enrollment, MFA phone number and default MFA method.
func (u MemberUpdate) ForSelf() MemberUpdate {
	return MemberUpdate{Name: u.Name, UntrustedMetadata: u.UntrustedMetadata, DefaultMFAMethod: u.DefaultMFAMethod,
		MemberFields: MemberFields{MFAEnrolled: u.MFAEnrolled, MFAPhoneNumber: u.MFAPhoneNumber}}
}

// OrgMember loads a member of org inside q; a member of another
// organization is member_not_found, exactly like a missing one.
func (s *Store) OrgMember(ctx context.Context, q store.Querier, org *Organization, memberID string) (*Member, error) {
	m, err := s.Member(ctx, q, org.projectID, memberID)
	if err == nil && m.OrganizationID != org.OrganizationID {
		err = fmt.Errorf("organization: member %s of another organization: %w", memberID, store.ErrNotFound)
	}
	if err != nil {
		return nil, NotFound(err, apierr.MemberNotFound)
	}
	return m, nil
}

// UpdateMember applies u to a member of org, inside the caller's
// transaction q. Deleted members must be reactivated first. A new email
// address is unverified until the member proves it by logging in with it;
// changing it ends, in q, the member's sessions and every secret emailed
// to the old address (AddressHolder), so q must be a transaction, and
// retires the old address unless u.UnlinkEmail (as a verified change
// does, ChangeEmail). Every column is written back from the member as
// read, so the read locks the row (orgMemberForUpdate): a concurrent
// update is not undone, nor an address change reverted without ending
// what the address held.
func (s *Store) UpdateMember(ctx context.Context, q store.Querier, org *Organization, env ids.Env, memberID string, u MemberUpdate) (*Member, error) {
	return s.updateMember(ctx, q, org, env, memberID, u, nil)
}

// updateMember is UpdateMember; authorize, when not nil, is given the
// member as locked, before any change, and may refuse the update: an
// authorization that depends on what the update changes must compare
// with the row the update writes over, not with an earlier read.
func (s *Store) updateMember(ctx context.Context, q store.Querier, org *Organization, env ids.Env, memberID string, u MemberUpdate,
	authorize func(ctx context.Context, m *Member) error) (*Member, error) {
	if u.Roles != nil {
		if err := checkRoleCount(*u.Roles); err != nil {
			return nil, err
		}
		// The policy lock before the member's row (LockRoles).
		if err := s.LockRoles(ctx, q, org.projectID, *u.Roles); err != nil {
			return nil, err
		}
	}
	m, err := s.orgMemberForUpdate(ctx, q, org, memberID)
	if err != nil {
		return nil, err
	}
	explicitBefore := m.explicit
	if m.Status == StatusDeleted {
		return nil, apierr.New(apierr.InactiveMember).WithMessage("This member is deleted; reactivate the member first.")
	}
	if authorize != nil {
		if err := authorize(ctx, m); err != nil {
			return nil, err
		}
	}
	if u.Name != nil {
		if m.Name, err = CheckName(*u.Name); err != nil {
			return nil, err
		}
	}
	// Metadata merges into the member's as read under the row's lock
	// (metadata.Merge), so two updates naming different keys both stay.
	if u.TrustedMetadata != nil {
		if m.TrustedMetadata, err = metadata.Merge("trusted_metadata", m.TrustedMetadata, *u.TrustedMetadata); err != nil {
			return nil, err
		}
	}
	if u.UntrustedMetadata != nil {
		if m.UntrustedMetadata, err = metadata.Merge("untrusted_metadata", m.UntrustedMetadata, *u.UntrustedMetadata); err != nil {
			return nil, err
		}
	}
	if u.IsBreakglass != nil {
		m.IsBreakglass = *u.IsBreakglass
	}
	roles, err := u.explicitRoles(m.explicit)
	if err != nil {
		return nil, err
	}
	if roles != nil {
		// Only the roles this update adds: those the member holds were
		// checked when assigned, and a policy change that removes a role
		// removes its assignments too or is refused. An is_admin toggle so
		// never waits for the policy lock while it holds the member's row.
		added := slices.DeleteFunc(slices.Clone(roles), func(id string) bool { return slices.Contains(m.explicit, id) })
		if err := s.CheckRoles(ctx, q, org, "roles", added); err != nil {
			return nil, err
		}
		m.explicit = roles
	}
	changed, err := s.applyFields(ctx, q, org, m, u)
	if err != nil {
		return nil, err
	}
	emailID, oldEmail := m.EmailID, m.EmailAddress
	if u.EmailAddress != nil {
		email, err := emailaddr.Normalize(*u.EmailAddress)
		if err != nil {
			return nil, err
		}
		if email != m.EmailAddress {
			if u.PreserveExistingSessions {
				// The address rule (AddressHolder) ends them whatever the
				// caller asks: refused rather than silently not kept.
				return nil, apierr.New(apierr.CannotPreserveExistingSessions)
			}
			if err := s.refuseRetired(ctx, q, org.OrganizationID, email, m.MemberID); err != nil {
				return nil, err
			}
			// Back to one of the member's own former addresses: it keeps
			// its id and leaves the retired list.
			if emailID, err = s.unretire(ctx, q, m.MemberID, email); err != nil {
				return nil, err
			}
			if emailID == "" {
				emailID = ids.New("email", env)
			}
			m.EmailAddress, m.EmailAddressVerified = email, false
		}
	}
	_, err = q.ExecContext(ctx, `UPDATE members SET name = $1, trusted_metadata = $2, untrusted_metadata = $3,
		is_breakglass = $4, roles = $5, email_address = $6, email_address_verified = $7,
		email_address_proven = (email_address_proven AND $7), email_id = $8, updated_at = $9
		WHERE member_id = $10 AND project_id = $11`,
		m.Name, mustJSON(m.TrustedMetadata), mustJSON(m.UntrustedMetadata), m.IsBreakglass, mustJSON(m.explicit), m.EmailAddress,
		m.EmailAddressVerified, emailID, store.Millis(s.clock.Now()), memberID, org.projectID)
	if errors.Is(store.MapError(err), store.ErrConflict) {
		return nil, apierr.Wrap(apierr.DuplicateMemberEmail, err)
	}
	if err != nil {
		return nil, fmt.Errorf("organization: update member: %w", err)
	}
	if err := s.saveFields(ctx, q, m, changed); err != nil {
		return nil, err
	}
	if m.EmailAddress != oldEmail {
		// Again after the write, which may have waited on the unique
		// index for another member's change that retired the address
		// (see refuseRetiredAfterInsert).
		if err := s.refuseRetired(ctx, q, org.OrganizationID, m.EmailAddress, m.MemberID); err != nil {
			return nil, err
		}
		if !u.UnlinkEmail {
			// m.EmailID is still the old address's id (emailID is the new one).
			if err := s.retire(ctx, q, org, memberID, m.EmailID, oldEmail); err != nil {
				return nil, err
			}
		}
		if err := s.addressLeft(ctx, q, Released{ProjectID: org.projectID, MemberID: memberID, Email: oldEmail}); err != nil {
			return nil, err
		}
	}
	out, err := s.Member(ctx, q, org.projectID, memberID)
	if err != nil {
		return nil, err
	}
	return out, s.endRoleSessions(ctx, q, explicitBefore, out, u.PreserveExistingSessions)
}

// SetMemberStatus moves a member of org from one of the from statuses to
// status, inside the caller's transaction q. It returns the member as it
// now is; wrongStatus is returned when the member is in none of the from
// statuses.
//
// Reactivating a deleted member also ends, in q, what they held before
// the deletion (AddressHolder): an unexpired login, invite or reset link,
// email code or login in progress would otherwise work again. While the
// member is deleted those are refused as inactive_member, which tells the
// real member why; a deleted member gets no new ones, so everything ended
// here predates the deletion.
func (s *Store) SetMemberStatus(ctx context.Context, q store.Querier, org *Organization, memberID, status string, from []string, wrongStatus error) (*Member, error) {
	before, err := s.OrgMember(ctx, q, org, memberID)
	if err != nil {
		return nil, err
	}
	args := []any{status, store.Millis(s.clock.Now()), memberID, org.OrganizationID}
	ps := make([]string, len(from))
	for i, f := range from {
		args = append(args, f)
		ps[i] = fmt.Sprintf("$%d", i+5)
	}
	res, err := q.ExecContext(ctx, `UPDATE members SET status = $1, updated_at = $2 WHERE member_id = $3 AND organization_id = $4
		AND status IN (`+strings.Join(ps, ", ")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("organization: set member status: %w", err)
	}
	m, err := s.OrgMember(ctx, q, org, memberID)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, wrongStatus
	}
	if before.Status == StatusDeleted && status != StatusDeleted {
		if err := s.release(ctx, q, Released{ProjectID: org.projectID, MemberID: memberID, Email: m.EmailAddress}); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Invitation describes a member to invite.
type Invitation struct {
	Email             string // normalised
	Name              string
	TrustedMetadata   map[string]any
	UntrustedMetadata map[string]any
	Roles             *[]string // explicitly assigned roles; nil: unchanged (none for a new member)
	// Caller is who invites. Re-inviting an invited or pending member
	// rewrites their name and untrusted metadata, a member update, so a
	// caller acting for a member needs for what it changes the permissions
	// the member update route asks (authorizeReinvite); the invite route
	// itself checks only create (and roles). Nil, like the project secret,
	// may change anything.
	Caller *SessionCaller
}

// InviteMember creates an invited member, or turns an existing pending or
// invited member into an invited one (updating the name and metadata that
// were given), inside q. The organization's email_invites policy decides
// who may be invited. Active members need no invite, so they are refused.
// A deleted member whose address was never verified is replaced by a new
// invited member (memberForAdmin, recorded by recordPurge); any other
// deleted member must be reactivated rather than re-invited, and is
// refused.
//
// Inviting twice is not a duplicate, so a concurrent creation of the
// address (another invite, a login's JIT signup, a password import) is
// not one either: the insert waits for it and skips the row (insertMember
// with skipTaken), and the invite goes on with the member it created, as
// if it had come second.
func (s *Store) InviteMember(ctx context.Context, q store.Querier, org *Organization, env ids.Env, inv Invitation) (*Member, error) {
	m, purged, err := s.inviteMember(ctx, q, org, env, inv)
	if err != nil || purged == "" {
		return m, err
	}
	return m, s.recordPurge(ctx, q, org, purged, m)
}

// inviteMember is InviteMember but for the audit event; purged names the
// deleted member it replaced, if any.
func (s *Store) inviteMember(ctx context.Context, q store.Querier, org *Organization, env ids.Env, inv Invitation) (
	m *Member, purged string, err error) {
	m, purged, err = s.memberForAdmin(ctx, q, org, inv.Email, "inviting")
	if errors.Is(err, store.ErrNotFound) {
		if err := org.CheckEmailInvite(inv.Email); err != nil {
			return nil, "", err
		}
		var created bool
		m, created, err = s.insertMember(ctx, q, org, env, NewMember{Email: inv.Email, Name: inv.Name, Status: StatusInvited,
			TrustedMetadata: inv.TrustedMetadata, UntrustedMetadata: inv.UntrustedMetadata, Roles: derefRoles(inv.Roles)}, true)
		if err != nil || created {
			return m, purged, err
		}
		m, err = s.MemberByEmail(ctx, q, org.OrganizationID, inv.Email)
	}
	if err != nil {
		return nil, "", err
	}
	switch m.Status {
	case StatusActive:
		return nil, "", apierr.New(apierr.DuplicateMemberEmail).WithMessage("This member is already active in the organization.")
	case StatusDeleted:
		// Only a concurrent creation that was deleted before this read:
		// not purged a second time.
		return nil, "", s.refuseDeleted(ctx, q, m, "inviting")
	}
	if err := org.CheckEmailInvite(inv.Email); err != nil {
		return nil, "", err
	}
	u := MemberUpdate{Roles: inv.Roles}
	if inv.Name != "" {
		u.Name = &inv.Name
	}
	if inv.TrustedMetadata != nil {
		u.TrustedMetadata = &inv.TrustedMetadata
	}
	if inv.UntrustedMetadata != nil {
		u.UntrustedMetadata = &inv.UntrustedMetadata
	}
	authorize := func(ctx context.Context, m *Member) error { return inv.Caller.authorizeReinvite(ctx, m, u) }
	if _, err := s.updateMember(ctx, q, org, env, m.MemberID, u, authorize); err != nil {
		return nil, "", err
	}
	m, err = s.SetMemberStatus(ctx, q, org, m.MemberID, StatusInvited, []string{StatusPending, StatusInvited}, apierr.New(apierr.InactiveMember))
	return m, purged, err
}

// authorizeReinvite authorizes what a re-invite's update u changes about
// the existing member m, for a caller acting for a member: a changed name
// or untrusted metadata needs the actions the member update route checks
// for them (MemberUpdate.Actions, through AuthorizeMemberAll, so the same
// refusal). A value equal to the member's is no change and needs nothing,
// so an invite that repeats what the member holds (or names nothing)
// still resends. Roles were authorized with the invite (update.settings.roles
// whenever named) and trusted metadata is refused there.
func (c *SessionCaller) authorizeReinvite(ctx context.Context, m *Member, u MemberUpdate) error {
	if c == nil || c.Member == nil {
		return nil
	}
	var changes MemberUpdate
	if u.Name != nil {
		// An invalid name counts as a change: refused for the permission
		// first, as the update route refuses it.
		if name, err := CheckName(*u.Name); err != nil || name != m.Name {
			changes.Name = u.Name
		}
	}
	if u.UntrustedMetadata != nil {
		if md, err := metadata.Merge("untrusted_metadata", m.UntrustedMetadata, *u.UntrustedMetadata); err != nil ||
			!sameMetadata(md, m.UntrustedMetadata) {
			changes.UntrustedMetadata = u.UntrustedMetadata
		}
	}
	return c.AuthorizeMemberAll(ctx, m.MemberID, changes.Actions())
}

// sameMetadata reports whether two metadata objects hold the same JSON
// (nil and empty alike). Values of a different Go type that encode alike
// are the same, as stored.
func sameMetadata(a, b map[string]any) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	ea, errA := json.Marshal(a)
	eb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ea, eb)
}

func derefRoles(r *[]string) []string {
	if r == nil {
		return nil
	}
	return *r
}
