package password

import (
	"context"
	"fmt"
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// DeleteParams names a password to delete through a member of an
// organization. Authorize, when set, decides inside the transaction
// whether the caller may act on the member who holds it. ForMember says
// the caller acts for a member (an SDK session, or the backend with a
// member session header) rather than with the project secret alone, and
// so may delete only a password nobody outside its organization uses
// (heldHereOnly).
type DeleteParams struct {
	Project      *project.Project
	Organization *organization.Organization
	PasswordID   string
	Authorize    func(m *organization.Member) error
	ForMember    bool
}

// Delete removes the password member_password_id of a member of the
// organization, with its outstanding reset links, and returns the member
// (now without a password). A password that no member of the organization
// holds is member_password_not_found. A password belongs to an email
// address and is shared by that address's memberships in every
// organization of the project, so the others lose it too; that is why a
// caller acting for a member may delete only a password that serves no
// other organization (see heldHereOnly).
func (s *Service) Delete(ctx context.Context, a DeleteParams) (*organization.Member, error) {
	var m *organization.Member
	err := s.d.DB.Tx(ctx, func(q store.Querier) error {
		var email string
		err := q.QueryRowContext(ctx, `SELECT email_address FROM member_passwords WHERE password_id = $1 AND project_id = $2`,
			a.PasswordID, a.Project.ID).Scan(&email)
		if err != nil {
			return organization.NotFound(store.MapError(err), apierr.MemberPasswordNotFound)
		}
		if m, err = s.d.Orgs.MemberByEmail(ctx, q, a.Organization.OrganizationID, email); err != nil {
			return organization.NotFound(err, apierr.MemberPasswordNotFound)
		}
		if a.Authorize != nil {
			if err := a.Authorize(m); err != nil {
				return err
			}
		}
		if a.ForMember {
			if err := s.heldHereOnly(ctx, q, a.Project.ID, m); err != nil {
				return err
			}
		}
		if _, err := q.ExecContext(ctx, `DELETE FROM member_passwords WHERE password_id = $1`, a.PasswordID); err != nil {
			return fmt.Errorf("password: delete: %w", err)
		}
		if err := s.retireResets(ctx, q, a.Project.ID, email); err != nil {
			return err
		}
		m, err = s.d.Orgs.Member(ctx, q, a.Project.ID, m.MemberID)
		return err
	})
	if err != nil {
		return nil, wrap("delete", err)
	}
	return m, nil
}

// heldHereOnly refuses a deletion made for a member when the password may
// serve someone outside the caller's organization. The rule looks only at
// who has the address, not at how anyone proved it: any organization's
// admin can create a member with any address, and can also have it marked
// verified, by an SSO connection to an identity provider they run or by an
// OAuth provider they admit, so no member record in the caller's
// organization, verified or not, is a hold on the password the address
// uses elsewhere.
//
// Every member of another organization with the address counts, whatever
// its status: an invited or pending member becomes active by logging in
// with this very password (activate), and a deleted one whose address was
// verified can be reactivated by its admins and would come back without
// it. A member record some admin creates elsewhere can thus only make the
// rule refuse (the password is then the backend's to delete), never let a
// deletion through. The members of
// other organizations are read inside the deletion's transaction but not
// locked: one created while the deletion runs joined after the password
// was chosen to go, as if it had come a moment later.
//
// Where no other organization has the address, the holder must still have
// proven it here: the password may have been set through a discovery reset
// by someone who is no member anywhere yet, and a member record an admin
// created with the address is no hold on that. A password login or an
// import marks the address verified, so a member who uses the password
// has. This part is a guard against the plain look-alike only: an SSO
// login through the admin's own identity provider marks the address too,
// so such a password, of no membership, stays within an admin's reach.
//
// unauthorized_action, as for a session reset that did not prove the
// address (ResetBySession): the caller may not do this, though the backend
// may (the project secret alone keeps full power). The answer tells an
// admin that the address is a member of another organization, which the
// outcome (refused or not) would tell anyway; only a caller authorized and
// stepped up for the deletion gets that far. member_password_not_found
// would contradict the member_password_id the caller was shown.
func (s *Service) heldHereOnly(ctx context.Context, q store.Querier, projectID string, m *organization.Member) error {
	shared, err := s.d.Orgs.AddressHeldElsewhere(ctx, q, projectID, m.OrganizationID, m.EmailAddress)
	if err != nil {
		return err
	}
	if shared {
		return apierr.New(apierr.UnauthorizedAction).WithMessage("This password is shared with other organizations: a " +
			"password belongs to the email address, and this address is also a member of another organization of the " +
			"project. Only the backend, with the project secret, can delete it.")
	}
	if !m.EmailAddressVerified {
		return apierr.New(apierr.UnauthorizedAction).WithMessage("This member has not verified their email address in " +
			"this organization. A password belongs to the email address, so an organization can delete it only for a " +
			"member who verified the address there.")
	}
	return nil
}

// SDKDelete handles SDK DELETE b2b/organizations/members/passwords/{member_password_id}:
// the logged-in member's own password, or (admins) that of another member
// of the same organization.
func (h Handlers) SDKDelete(r *http.Request) (any, error) {
	c, err := organization.CallerFromSession(r, h.Service.d.Orgs, h.Sessions)
	if err != nil {
		return nil, err
	}
	m, err := h.Service.Delete(r.Context(), DeleteParams{Project: c.Project, Organization: c.Organization,
		PasswordID: r.PathValue("member_password_id"),
		Authorize: func(m *organization.Member) error {
			if err := c.AuthorizeMember(r.Context(), m.MemberID, organization.ActionDeletePassword); err != nil {
				return err
			}
			return c.StepUp()
		}, ForMember: true})
	if err != nil {
		return nil, err
	}
	return &organization.MemberResponse{MemberID: m.MemberID, Member: m, Organization: c.Organization}, nil
}

// BackendDelete handles DELETE /v1/b2b/organizations/{organization_id}/members/passwords/{member_password_id},
// authorized by the member session header's roles when one is sent; that
// session then also needs a recent factor and a password no other
// organization uses (heldHereOnly), as on the SDK face (and, for the
// factor, as the backend's start_email_update asks). The project secret
// alone needs neither.
func (h Handlers) BackendDelete(r *http.Request) (any, error) {
	c, err := organization.BackendCaller(r, h.Service.d.Orgs, h.Sessions, r.PathValue("organization_id"))
	if err != nil {
		return nil, err
	}
	m, err := h.Service.Delete(r.Context(), DeleteParams{Project: c.Project, Organization: c.Organization,
		PasswordID: r.PathValue("member_password_id"),
		Authorize: func(m *organization.Member) error {
			if err := c.AuthorizeMember(r.Context(), m.MemberID, organization.ActionDeletePassword); err != nil {
				return err
			}
			if c.Member == nil {
				return nil
			}
			return c.StepUp()
		}, ForMember: c.Member != nil})
	if err != nil {
		return nil, err
	}
	return &organization.MemberResponse{MemberID: m.MemberID, Member: m, Organization: c.Organization}, nil
}
