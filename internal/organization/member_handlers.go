package organization

import (
	"context"
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// SearchResponse answers an organization search.
type SearchResponse struct {
	httpapi.Common
	Organizations   []*Organization `json:"organizations"`
	ResultsMetadata ResultsMetadata `json:"results_metadata"`
}

// Search handles POST /v1/b2b/organizations/search.
func (h Handlers) Search(r *http.Request) (any, error) {
	var req SearchParams
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	res, err := h.Store.Search(r.Context(), project.CallerFrom(r.Context()).Project.ID, req)
	if err != nil {
		return nil, err
	}
	return &SearchResponse{Organizations: res.Organizations, ResultsMetadata: res.Metadata}, nil
}

// MemberSearchResponse answers a member search.
type MemberSearchResponse struct {
	httpapi.Common
	Members         []*Member                `json:"members"`
	ResultsMetadata ResultsMetadata          `json:"results_metadata"`
	Organizations   map[string]*Organization `json:"organizations"`
}

func memberSearchResponse(res *MemberSearchResult) *MemberSearchResponse {
	return &MemberSearchResponse{Members: res.Members, ResultsMetadata: res.Metadata, Organizations: res.Organizations}
}

// SearchMembers handles POST /v1/b2b/organizations/members/search.
func (h Handlers) SearchMembers(r *http.Request) (any, error) {
	var req MemberSearchParams
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	c, err := BackendCallerIn(r, h.Store, h.Sessions, req.OrganizationIDs)
	if err != nil {
		return nil, err
	}
	if err := c.Authorize(r.Context(), ResourceMember, ActionSearch); err != nil {
		return nil, err
	}
	res, err := h.Store.SearchMembers(r.Context(), c.Project.ID, req)
	if err != nil {
		return nil, err
	}
	return memberSearchResponse(res), nil
}

// backendCaller resolves the caller of a backend call on the organization
// named in the path: the project secret, or the member whose session
// header the call carries (BackendCaller).
func (h Handlers) backendCaller(r *http.Request) (*SessionCaller, error) {
	return BackendCaller(r, h.Store, h.Sessions, r.PathValue("organization_id"))
}

// UpdateMember handles PUT /v1/b2b/organizations/{organization_id}/members/{member_id}.
func (h Handlers) UpdateMember(r *http.Request) (any, error) {
	var u MemberUpdate
	if err := httpapi.Decode(r, &u); err != nil {
		return nil, err
	}
	c, err := h.backendCaller(r)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("member_id")
	if err := h.authorizeMemberUpdate(r.Context(), c, id, u); err != nil {
		return nil, err
	}
	return h.updateMember(r.Context(), c.Project, c.Organization, id, u)
}

// DeleteMemberExternalID handles
// DELETE /v1/b2b/organizations/{organization_id}/members/{member_id}/external_id:
// an update clearing the external id, as the organization's route does.
func (h Handlers) DeleteMemberExternalID(r *http.Request) (any, error) {
	c, err := h.backendCaller(r)
	if err != nil {
		return nil, err
	}
	none := ""
	u := MemberUpdate{MemberFields: MemberFields{ExternalID: &none}}
	id := r.PathValue("member_id")
	if err := h.authorizeMemberUpdate(r.Context(), c, id, u); err != nil {
		return nil, err
	}
	return h.updateMember(r.Context(), c.Project, c.Organization, id, u)
}

// authorizeMemberUpdate is the one authorization of a member update, for
// the SDK face (the self update too) and for the backend face acting for
// a member session, so they cannot drift apart: each changed field needs
// its action on stytch.member (or stytch.self for the caller's own
// record), an empty update of another member still reads them (search),
// a changed address of another member and a changed MFA setting of anyone
// need a recent factor (stepUpForChanges), and trusted metadata and the
// external id are the backend's own. A member's own address is refused
// outright: it changes only through start_email_update, which proves the
// new inbox; set here, it would be unproven yet count for email-domain
// roles at once. The project secret (no member) may do everything.
func (h Handlers) authorizeMemberUpdate(ctx context.Context, c *SessionCaller, memberID string, u MemberUpdate) error {
	if c.Member == nil {
		return nil
	}
	if u.TrustedMetadata != nil {
		return errMemberTrusted("trusted_metadata")
	}
	if u.ExternalID != nil {
		return errMemberTrusted("external_id")
	}
	actions := u.Actions()
	switch {
	case memberID == c.Member.MemberID && u.EmailAddress != nil:
		return apierr.New(apierr.UnauthorizedAction).WithMessage("Members cannot update their own email address here; use start_email_update.")
	case memberID != c.Member.MemberID && len(actions) == 0:
		actions = []string{ActionSearch} // an empty update still reads another member
	}
	if err := c.AuthorizeMemberAll(ctx, memberID, actions); err != nil {
		return err
	}
	return h.stepUpForChanges(ctx, c, memberID, u)
}

// stepUpForChanges asks a member session for a recent factor
// (session_too_old otherwise) when it changes another member's email
// address, as start_email_update does, or anyone's MFA enrollment, MFA
// phone number or default MFA method, as enrolling or removing a factor
// does (internal/stepup). The address change is immediate and unverified,
// and whoever holds the address can reset the password; turning MFA off
// or steering it weakens what guards the account. So a session that is
// stolen, or left open, must not be enough. The project secret is no
// session and needs none. An unchanged value is no change.
func (h Handlers) stepUpForChanges(ctx context.Context, c *SessionCaller, memberID string, u MemberUpdate) error {
	if c.Member == nil || (u.EmailAddress == nil && u.MFAEnrolled == nil && u.MFAPhoneNumber == nil && u.DefaultMFAMethod == nil) {
		return nil
	}
	m, err := h.Store.Member(ctx, h.Store.db.Read(), c.Project.ID, memberID)
	if err != nil {
		return NotFound(err, apierr.MemberNotFound)
	}
	if u.changesGuarded(m) {
		return c.StepUp()
	}
	return nil
}

func (h Handlers) updateMember(ctx context.Context, p *project.Project, o *Organization, memberID string, u MemberUpdate) (any, error) {
	var m *Member
	err := h.Store.db.Tx(ctx, func(q store.Querier) (err error) {
		m, err = h.Store.UpdateMember(ctx, q, o, p.Env, memberID, u)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &MemberResponse{MemberID: m.MemberID, Member: m, Organization: o}, nil
}

// MemberDeleteResponse answers a member delete.
type MemberDeleteResponse struct {
	httpapi.Common
	MemberID string `json:"member_id"`
}

// DeleteMember handles DELETE /v1/b2b/organizations/{organization_id}/members/{member_id}.
func (h Handlers) DeleteMember(r *http.Request) (any, error) {
	c, err := h.backendCaller(r)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("member_id")
	if err := c.AuthorizeMember(r.Context(), id, ActionDelete); err != nil {
		return nil, err
	}
	return h.deleteMember(r.Context(), c.Project, c.Organization, id)
}

// deleteMember deletes the member through Store.DeleteMember.
func (h Handlers) deleteMember(ctx context.Context, p *project.Project, o *Organization, memberID string) (any, error) {
	m, err := h.Store.DeleteMember(ctx, h.Sessions, p, o, memberID, nil)
	if err != nil {
		return nil, err
	}
	return &MemberDeleteResponse{MemberID: m.MemberID}, nil
}

// DeleteMember is the one member deletion path (the member routes of both
// faces, SCIM deprovisioning): DeleteMemberIn in a transaction of its own
// (also: as for DeleteMemberIn).
func (s *Store) DeleteMember(ctx context.Context, sessions Sessions, p *project.Project, o *Organization, memberID string,
	also func(q store.Querier, m *Member) error) (*Member, error) {
	var m *Member
	err := s.db.Tx(ctx, func(q store.Querier) (err error) {
		m, err = s.DeleteMemberIn(ctx, q, sessions, p, o, memberID, also)
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// DeleteMemberIn deletes a member in the caller's transaction q, for a
// caller whose other writes must commit or fail with the deletion (SCIM's
// deprovisioning push): the member is marked deleted (again, harmlessly,
// if they already are), and the member deletion hooks
// (AddMemberDeletionHook) and then also run in q (nil for nothing more).
// Once q commits, and only then, their sessions end (store.Finish: the
// caller's Tx returns the revocation's error, the deletion committed).
// Sessions of a non-active member already fail to authenticate; revoking
// them as well keeps a later reactivation from reviving old sessions.
func (s *Store) DeleteMemberIn(ctx context.Context, q store.Querier, sessions Sessions, p *project.Project, o *Organization,
	memberID string, also func(q store.Querier, m *Member) error) (*Member, error) {
	m, err := s.SetMemberStatus(ctx, q, o, memberID, StatusDeleted, Statuses, apierr.New(apierr.MemberNotFound))
	if err != nil {
		return nil, err
	}
	if err := s.memberDeleted(ctx, q, m); err != nil {
		return nil, err
	}
	if also != nil {
		if err := also(q, m); err != nil {
			return nil, err
		}
	}
	if err := store.Finish(q, func() error { return sessions.RevokeMemberSessions(ctx, p, m.MemberID) }); err != nil {
		return nil, err
	}
	return m, nil
}

// ReactivateMember handles PUT /v1/b2b/organizations/{organization_id}/members/{member_id}/reactivate.
func (h Handlers) ReactivateMember(r *http.Request) (any, error) {
	c, err := h.backendCaller(r)
	if err != nil {
		return nil, err
	}
	if err := c.Authorize(r.Context(), ResourceMember, ActionCreate); err != nil {
		return nil, err
	}
	return h.reactivateMember(r.Context(), c.Project, c.Organization, r.PathValue("member_id"))
}

// reactivateMember makes a deleted member whose address was verified
// active again (Store.reactivate). Reactivating is an admin decision, so
// the member does not need to log in again to count as active. The
// transaction is the request's own: what a reactivation ends must commit
// with it.
func (h Handlers) reactivateMember(ctx context.Context, _ *project.Project, o *Organization, memberID string) (any, error) {
	var m *Member
	err := h.Store.db.Tx(ctx, func(q store.Querier) (err error) {
		m, err = h.Store.reactivate(ctx, q, o, memberID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &MemberResponse{MemberID: m.MemberID, Member: m, Organization: o}, nil
}

// DangerouslyGetMember handles GET /v1/b2b/organizations/members/dangerously_get/{member_id}:
// a member of any organization of the project, by id alone.
func (h Handlers) DangerouslyGetMember(r *http.Request) (any, error) {
	ctx := r.Context()
	p := project.CallerFrom(ctx).Project
	m, err := h.Store.Member(ctx, h.Store.db.Read(), p.ID, r.PathValue("member_id"))
	if err != nil {
		return nil, NotFound(err, apierr.MemberNotFound)
	}
	o, err := h.Store.Get(ctx, p.ID, m.OrganizationID)
	if err != nil {
		return nil, NotFound(err, apierr.OrganizationNotFound)
	}
	return &MemberResponse{MemberID: m.MemberID, Member: m, Organization: o}, nil
}
