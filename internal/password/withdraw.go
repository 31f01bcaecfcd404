package password

import (
	"context"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// mayWithdraw decides, inside the transaction q that withdraws it, whether
// caller c may take the password of member m away: delete it (Delete) or
// force its reset (RequireReset), which leaves it unusable until someone
// resets it through the inbox. Either acts on the address, so on every
// organization whose members have it, and the two are one decision: the
// caller needs update.info.delete.password on m; acting for a member (an
// SDK session, or the backend with the member session header) they also
// need a recent factor (a stolen session cannot lock the holder out) and a
// password that serves no one outside their organization (heldHereOnly).
// The project secret alone (c.Member nil) may always.
func (s *Service) mayWithdraw(ctx context.Context, q store.Querier, c *organization.SessionCaller, m *organization.Member) error {
	if err := c.AuthorizeMember(ctx, m.MemberID, organization.ActionDeletePassword); err != nil {
		return err
	}
	if c.Member == nil {
		return nil
	}
	if err := c.StepUp(); err != nil {
		return err
	}
	return s.heldHereOnly(ctx, q, c.Project.ID, m)
}

// heldHereOnly refuses a withdrawal made for a member when the password may
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
// rule refuse (the password is then the backend's to withdraw), never let
// a withdrawal through. The members of other organizations are read inside
// the withdrawal's transaction but not locked: one created while it runs
// joined after the password was chosen to go, as if it had come a moment
// later.
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
// stepped up for the withdrawal gets that far. member_password_not_found
// would contradict the member_password_id the caller was shown.
func (s *Service) heldHereOnly(ctx context.Context, q store.Querier, projectID string, m *organization.Member) error {
	shared, err := s.d.Orgs.AddressHeldElsewhere(ctx, q, projectID, m.OrganizationID, m.EmailAddress)
	if err != nil {
		return err
	}
	if shared {
		return apierr.New(apierr.UnauthorizedAction).WithMessage("This password is shared with other organizations: a " +
			"password belongs to the email address, and this address is also a member of another organization of the " +
			"project. Only the backend, with the project secret, can delete it or require its reset.")
	}
	if !m.EmailAddressVerified {
		return apierr.New(apierr.UnauthorizedAction).WithMessage("This member has not verified their email address in " +
			"this organization. A password belongs to the email address, so an organization can delete it or require " +
			"its reset only for a member who verified the address there.")
	}
	return nil
}
