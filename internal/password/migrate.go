package password

import (
	"context"
	"errors"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/password/pwhash"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// MigrateParams is a b2b/passwords/migrate request.
type MigrateParams struct {
	Project           *project.Project
	OrganizationID    string
	Email             string
	Hash              pwhash.Import
	Name              string
	TrustedMetadata   map[string]any
	UntrustedMetadata map[string]any
	// Roles, when not nil, replaces the member's explicit roles.
	Roles *[]string
	// PreserveExistingSessions keeps the SSO sessions that taking away a
	// role the member also holds through a connection would end (the
	// member update's rule). It is about roles only: a hash that replaces
	// the address's password still ends what the old one opened.
	PreserveExistingSessions bool
	// ExternalID names a member this import creates; it is ignored for
	// one that exists, as the API family documents.
	ExternalID string
	// MFAPhoneNumber is set as a member update sets it; PhoneVerified
	// vouches for it (set_phone_number_verified) and needs it.
	MFAPhoneNumber string
	PhoneVerified  bool
}

// MigrateResult is the member the password was imported for.
type MigrateResult struct {
	Member        *organization.Member
	MemberCreated bool
	Organization  *organization.Organization
}

// Migrate imports a hash from another system for an address of an
// organization, creating the member (active, email verified: the customer's
// backend vouches for the address) when needed. The hash is kept as given
// and replaced by argon2id at the member's next successful login. A hash
// that replaces the address's password ends what the old one could do
// (importHash). The member fields the request carries go through the
// member update's rules in the same transaction (memberFields), so a
// refused one leaves neither member, nor roles, nor hash written.
func (s *Service) Migrate(ctx context.Context, a MigrateParams) (*MigrateResult, error) {
	m, err := s.prepareMigrate(ctx, a)
	if err != nil {
		return nil, err
	}
	var out *MigrateResult
	err = s.d.DB.Tx(ctx, func(q store.Querier) (err error) {
		out, err = s.migrateIn(ctx, q, m)
		return err
	})
	if err != nil {
		return nil, wrap("migrate", err)
	}
	return out, nil
}

// migration is a checked migrate request.
type migration struct {
	MigrateParams
	email, encoded string
	org            *organization.Organization
}

// prepareMigrate checks a migrate request and loads its organization,
// outside the write transaction.
func (s *Service) prepareMigrate(ctx context.Context, a MigrateParams) (*migration, error) {
	email, err := emailaddr.Normalize(a.Email)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.OrganizationID) == "" {
		return nil, apierr.Invalid("organization_id", "organization_id is required.")
	}
	// The caller names the member, so a name over the limit is refused
	// (ProvisionMember would cut it, as it does for identity providers).
	if a.Name, err = organization.CheckName(a.Name); err != nil {
		return nil, err
	}
	// The flag attests ownership of one number: the one this request
	// names, never whatever number the member happens to have.
	if a.PhoneVerified && strings.TrimSpace(a.MFAPhoneNumber) == "" {
		return nil, apierr.Invalid("set_phone_number_verified", "set_phone_number_verified needs the mfa_phone_number it vouches for.")
	}
	encoded, err := pwhash.Normalize(a.Hash)
	if err != nil {
		return nil, apierr.Wrap(apierr.InvalidRequest, err).WithMessage(strings.TrimPrefix(err.Error(), "pwhash: malformed hash: ")).
			WithDetails(map[string]any{"field": "hash"})
	}
	org, err := s.d.Orgs.Get(ctx, a.Project.ID, a.OrganizationID)
	if err != nil {
		return nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	return &migration{MigrateParams: a, email: email, encoded: encoded, org: org}, nil
}

// migrateIn imports the hash inside q, creating the member when the
// address has none in the organization. A concurrent creation of the
// address (another migrate, an invite, a login's signup) is not a
// duplicate: ProvisionMember takes the member it created, and the import
// goes on as if it had come second.
func (s *Service) migrateIn(ctx context.Context, q store.Querier, a *migration) (*MigrateResult, error) {
	out := &MigrateResult{Organization: a.org}
	if a.Roles != nil {
		// The policy lock before any member's row, as UpdateMember takes it.
		if err := s.d.Orgs.LockRoles(ctx, q, a.Project.ID, *a.Roles); err != nil {
			return nil, err
		}
	}
	m, err := s.d.Orgs.MemberByEmail(ctx, q, a.org.OrganizationID, a.email)
	switch {
	case errors.Is(err, store.ErrNotFound):
		m, out.MemberCreated, err = s.d.Orgs.ProvisionMember(ctx, q, a.org, a.Project.Env, organization.NewMember{Email: a.email,
			Name: a.Name, Status: organization.StatusActive, TrustedMetadata: a.TrustedMetadata,
			UntrustedMetadata: a.UntrustedMetadata})
		if err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		// The member's row before the password's (holdMember's
		// lockInOrder): the import marks the address verified after
		// storing the hash. A member created just now is this
		// transaction's own row already. The status is read again under
		// the lock, so a deletion that committed while this waited for
		// the row refuses the import.
		if err := s.holdMember(ctx, q, m); err != nil {
			return nil, err
		}
		if m, err = s.d.Orgs.MemberByEmail(ctx, q, a.org.OrganizationID, a.email); err != nil {
			// Gone while this waited (a purge, an address change).
			return nil, organization.NotFound(err, apierr.MemberNotFound)
		}
		if m.Status == organization.StatusDeleted {
			return nil, apierr.New(apierr.InactiveMember)
		}
	}
	if err := s.importHash(ctx, q, a.Project, a.email, a.encoded); err != nil {
		return nil, err
	}
	if err := s.memberFields(ctx, q, a, m, out.MemberCreated); err != nil {
		return nil, err
	}
	if _, err := s.d.Orgs.MarkEmailVerified(ctx, q, m); err != nil {
		return nil, err
	}
	if out.Member, err = s.d.Orgs.Member(ctx, q, a.Project.ID, m.MemberID); err != nil {
		return nil, err
	}
	return out, nil
}

// memberFields applies the request's roles, MFA phone number and, for a
// member this import created, external id, through the member update
// (organization.Store.UpdateMember: unknown roles, stytch_member, a taken
// external id or number and a second number are refused there). After the
// hash, in lockInOrder's order: the member's row, already held, then the
// password's, then the sessions a roles change ends. An import without
// them stays the single write importHash describes.
func (s *Service) memberFields(ctx context.Context, q store.Querier, a *migration, m *organization.Member, created bool) error {
	u := organization.MemberUpdate{Roles: a.Roles, PreserveExistingSessions: a.PreserveExistingSessions}
	if a.MFAPhoneNumber != "" {
		u.MFAPhoneNumber, u.MFAPhoneVouched = &a.MFAPhoneNumber, a.PhoneVerified
	}
	if created && a.ExternalID != "" {
		u.ExternalID = &a.ExternalID
	}
	if u.Roles == nil && u.MFAPhoneNumber == nil && u.ExternalID == nil {
		return nil
	}
	_, err := s.d.Orgs.UpdateMember(ctx, q, a.org, a.Project.Env, m.MemberID, u)
	return err
}

// importHash stores an imported hash inside q. Replacing another password
// of the address is a password change like any other (changePassword: its
// reset links, sessions and logins in progress end). A first password has
// nothing to end, and the same hash imported again (once per organization
// of the address, as the API family advises) changes nothing, not even a
// forced reset: the first is a single write and the second none, so a
// bulk import stays cheap.
//
// Which case applies is decided on the password as it stands once this
// import holds it: two imports of one address at once (into two of its
// organizations, with different hashes) must not both find no password
// and each store theirs as a first one, the later winning without the
// change's side effects. The stored row is held (heldCredential); with
// none, the first password is inserted only if still absent (addFirst),
// and an import that finds one added meanwhile comes second and replaces
// it as any other.
func (s *Service) importHash(ctx context.Context, q store.Querier, p *project.Project, email, encoded string) error {
	cur, err := s.heldCredential(ctx, q, p.ID, email)
	if isNotFound(err) {
		var added bool
		if added, err = s.addFirst(ctx, q, p, email, encoded); err != nil || added {
			return err
		}
		cur, err = s.heldCredential(ctx, q, p.ID, email)
	}
	switch {
	// Not found again: the password added meanwhile was also deleted
	// meanwhile, so this import sets the first one after the deletion.
	case isNotFound(err):
		return s.setHash(ctx, q, p, email, encoded)
	case err != nil:
		return err
	// The same hash again writes nothing: in particular a forced reset
	// (the backend's, or a breach found at login) stays, since the
	// password it withdrew is the one imported again.
	case cur.Hash == encoded:
		return nil
	}
	return s.changePassword(ctx, q, p, email, encoded, "")
}

// RequireResetParams is a b2b/passwords/email/require_reset request.
type RequireResetParams struct {
	Project        *project.Project
	Email          string
	OrganizationID string
	MemberID       string
	// Caller, when set, is the member a backend call acts for (the member
	// session header), authorized as for a deletion (mayWithdraw); a
	// request that names no member is then refused. Nil is the project
	// secret alone.
	Caller *organization.SessionCaller
}

// RequireResetResult names the member, when the request named one.
type RequireResetResult struct {
	Member       *organization.Member
	Organization *organization.Organization
}

// RequireReset forces the address's password to be reset: logging in with
// it then fails with reset_password, even when it is right, until a reset
// through the inbox sets a new one. That withdraws the password from every
// organization whose members have the address, so a caller acting for a
// member may do it only where they could delete it (mayWithdraw, read in
// the same transaction as the change).
func (s *Service) RequireReset(ctx context.Context, a RequireResetParams) (*RequireResetResult, error) {
	out := &RequireResetResult{}
	err := s.d.DB.Tx(ctx, func(q store.Querier) error {
		email := a.Email
		if a.MemberID != "" || a.OrganizationID != "" {
			var err error
			if out.Member, out.Organization, err = s.namedMember(ctx, q, a); err != nil {
				return err
			}
			if email == "" {
				email = out.Member.EmailAddress
			}
		}
		if a.Caller != nil {
			if out.Member == nil {
				return apierr.Invalid("organization_id", "organization_id is required when acting for a member session.")
			}
			if err := s.mayWithdraw(ctx, q, a.Caller, out.Member); err != nil {
				return err
			}
		}
		email, err := emailaddr.Normalize(email)
		if err != nil {
			return err
		}
		if out.Member != nil && out.Member.EmailAddress != email {
			return apierr.New(apierr.MemberNotFound).WithMessage("The member has a different email address.")
		}
		found, err := s.forceReset(ctx, q, a.Project.ID, email)
		if err != nil {
			return err
		}
		if !found {
			return apierr.New(apierr.MemberPasswordNotFound)
		}
		return nil
	})
	if err != nil {
		return nil, wrap("require reset", err)
	}
	return out, nil
}

func (s *Service) namedMember(ctx context.Context, q store.Querier, a RequireResetParams) (*organization.Member, *organization.Organization, error) {
	var m *organization.Member
	var err error
	if a.MemberID != "" {
		if m, err = s.d.Orgs.Member(ctx, q, a.Project.ID, a.MemberID); err != nil {
			return nil, nil, organization.NotFound(err, apierr.MemberNotFound)
		}
		if a.OrganizationID != "" && a.OrganizationID != m.OrganizationID {
			return nil, nil, apierr.New(apierr.MemberNotFound)
		}
	}
	orgID := a.OrganizationID
	if m != nil {
		orgID = m.OrganizationID
	}
	org, err := s.d.Orgs.Get(ctx, a.Project.ID, orgID)
	if err != nil {
		return nil, nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	if m == nil {
		email, err := emailaddr.Normalize(a.Email)
		if err != nil {
			return nil, nil, err
		}
		if m, err = s.d.Orgs.MemberByEmail(ctx, q, org.OrganizationID, email); err != nil {
			return nil, nil, organization.NotFound(err, apierr.MemberNotFound)
		}
	}
	return m, org, nil
}
