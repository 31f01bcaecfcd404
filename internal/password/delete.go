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
// organization, and who deletes it: Caller is the project secret (no
// member) or the member the caller acts for (an SDK session, or the
// backend with a member session header), whom mayWithdraw authorizes
// inside the transaction.
type DeleteParams struct {
	Project      *project.Project
	Organization *organization.Organization
	PasswordID   string
	Caller       *organization.SessionCaller
}

// Delete removes the password member_password_id of a member of the
// organization, with its outstanding reset links, and returns the member
// (now without a password). A password that no member of the organization
// holds is member_password_not_found. A password belongs to an email
// address and is shared by that address's memberships in every
// organization of the project, so the others lose it too; that is why a
// caller acting for a member may delete only a password that serves no
// other organization (see mayWithdraw).
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
		if err := s.mayWithdraw(ctx, q, a.Caller, m); err != nil {
			return err
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

// SDKDelete handles SDK DELETE b2b/organizations/members/passwords/{member_password_id}:
// the logged-in member's own password, or (admins) that of another member
// of the same organization.
func (h Handlers) SDKDelete(r *http.Request) (any, error) {
	c, err := organization.CallerFromSession(r, h.Service.d.Orgs, h.Sessions)
	if err != nil {
		return nil, err
	}
	m, err := h.Service.Delete(r.Context(), DeleteParams{Project: c.Project, Organization: c.Organization,
		PasswordID: r.PathValue("member_password_id"), Caller: c})
	if err != nil {
		return nil, err
	}
	return &organization.MemberResponse{MemberID: m.MemberID, Member: m, Organization: c.Organization}, nil
}

// BackendDelete handles DELETE /v1/b2b/organizations/{organization_id}/members/passwords/{member_password_id},
// authorized by the member session header's roles when one is sent; that
// session then also needs a recent factor and a password no other
// organization uses (mayWithdraw), as on the SDK face (and, for the
// factor, as the backend's start_email_update asks). The project secret
// alone needs neither.
func (h Handlers) BackendDelete(r *http.Request) (any, error) {
	c, err := organization.BackendCaller(r, h.Service.d.Orgs, h.Sessions, r.PathValue("organization_id"))
	if err != nil {
		return nil, err
	}
	m, err := h.Service.Delete(r.Context(), DeleteParams{Project: c.Project, Organization: c.Organization,
		PasswordID: r.PathValue("member_password_id"), Caller: c})
	if err != nil {
		return nil, err
	}
	return &organization.MemberResponse{MemberID: m.MemberID, Member: m, Organization: c.Organization}, nil
}
