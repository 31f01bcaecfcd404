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
// whether the caller may act on the member who holds it.
type DeleteParams struct {
	Project      *project.Project
	Organization *organization.Organization
	PasswordID   string
	Authorize    func(m *organization.Member) error
}

// Delete removes the password member_password_id of a member of the
// organization, with its outstanding reset links, and returns the member
// (now without a password). A password that no member of the organization
// holds is member_password_not_found. A password belongs to an email
// address and is shared by that address's memberships in every
// organization of the project, so the others lose it too; that is why a
// member acting on it must hold it through a proven address (see
// provenHere), not merely through a member record with the address.
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

// provenHere refuses a deletion made for a member session when the
// password's holder has not proven the address in the caller's
// organization. Any organization's admin can create a member with any
// address, unverified and without sending anything, and that member record
// alone would otherwise let them delete the password the address uses in
// every other organization. unauthorized_action, as for a session reset
// that did not prove the address (ResetBySession): the caller may not do
// this, though the backend may (the project secret alone keeps full
// power), and the answer says nothing the caller could not read already
// (the member's email_address_verified). member_password_not_found would
// contradict the member_password_id the caller was shown.
func provenHere(m *organization.Member) error {
	if m.EmailAddressVerified {
		return nil
	}
	return apierr.New(apierr.UnauthorizedAction).WithMessage("This member has not verified their email address in this " +
		"organization. A password belongs to the email address and is shared by every organization it is a member of, so " +
		"an organization can delete it only for a member who verified the address there.")
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
			if err := provenHere(m); err != nil {
				return err
			}
			return c.StepUp()
		}})
	if err != nil {
		return nil, err
	}
	return &organization.MemberResponse{MemberID: m.MemberID, Member: m, Organization: c.Organization}, nil
}

// BackendDelete handles DELETE /v1/b2b/organizations/{organization_id}/members/passwords/{member_password_id},
// authorized by the member session header's roles when one is sent; that
// session then also needs a holder who proved the address here and a
// recent factor, as on the SDK face (and, for the factor, as the backend's
// start_email_update asks). The project secret alone needs neither.
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
			if err := provenHere(m); err != nil {
				return err
			}
			return c.StepUp()
		}})
	if err != nil {
		return nil, err
	}
	return &organization.MemberResponse{MemberID: m.MemberID, Member: m, Organization: c.Organization}, nil
}
