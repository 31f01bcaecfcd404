package organization

import (
	"errors"
	"net/http"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// The SDK routes of api-reference 3.11 and 3.12 act for the logged-in
// member: the organization is always the caller's own, so a session of one
// organization can never read or change another.

func (h Handlers) sessionCaller(r *http.Request) (*SessionCaller, error) {
	return CallerFromSession(r, h.Store, h.Sessions)
}

// authorizedCaller resolves the session and authorizes every action on
// resource.
func (h Handlers) authorizedCaller(r *http.Request, resource string, actions ...string) (*SessionCaller, error) {
	c, err := h.sessionCaller(r)
	if err != nil {
		return nil, err
	}
	for _, a := range actions {
		if err := c.Authorize(r.Context(), resource, a); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// GetMe handles SDK GET /b2b/organizations/me.
func (h Handlers) GetMe(r *http.Request) (any, error) {
	c, err := h.sessionCaller(r)
	if err != nil {
		return nil, err
	}
	return &OrgResponse{Organization: c.Organization}, nil
}

// UpdateMe handles SDK PUT /b2b/organizations/me: each changed setting
// needs its stytch.organization action.
func (h Handlers) UpdateMe(r *http.Request) (any, error) {
	var set Settings
	if err := httpapi.Decode(r, &set); err != nil {
		return nil, err
	}
	set = set.ForMembers()
	c, err := h.authorizedCaller(r, ResourceOrganization, set.Actions()...)
	if err != nil {
		return nil, err
	}
	o, err := h.Store.Update(r.Context(), c.Project.ID, c.Organization.OrganizationID, set)
	if err != nil {
		return nil, NotFound(err, apierr.OrganizationNotFound)
	}
	return &OrgResponse{Organization: o}, nil
}

// DeleteMe handles SDK DELETE /b2b/organizations/me (stytch.organization
// delete). The organization's members and sessions go with it.
func (h Handlers) DeleteMe(r *http.Request) (any, error) {
	c, err := h.authorizedCaller(r, ResourceOrganization, ActionOrgDelete)
	if err != nil {
		return nil, err
	}
	if err := h.Store.Delete(r.Context(), c.Project.ID, c.Organization.OrganizationID, ActorOf(c, true)); err != nil {
		return nil, NotFound(err, apierr.OrganizationNotFound)
	}
	return &DeleteResponse{OrganizationID: c.Organization.OrganizationID}, nil
}

// SelfMember handles SDK GET /b2b/organizations/members/me.
func (h Handlers) SelfMember(r *http.Request) (any, error) {
	c, err := h.sessionCaller(r)
	if err != nil {
		return nil, err
	}
	return &MemberResponse{MemberID: c.Member.MemberID, Member: c.Member, Organization: c.Organization}, nil
}

// UpdateSelf handles SDK PUT /b2b/organizations/members/update: a member
// changes their own name, untrusted metadata and MFA settings (ForSelf),
// authorized as any update of their own record (stytch.self, and a
// recent factor for an MFA change: authorizeMemberUpdate).
func (h Handlers) UpdateSelf(r *http.Request) (any, error) {
	var u MemberUpdate
	if err := httpapi.Decode(r, &u); err != nil {
		return nil, err
	}
	u = u.ForSelf()
	c, err := h.sessionCaller(r)
	if err != nil {
		return nil, err
	}
	if err := h.authorizeMemberUpdate(r.Context(), c, c.Member.MemberID, u); err != nil {
		return nil, err
	}
	return h.updateMember(r.Context(), c.Project, c.Organization, c.Member.MemberID, u)
}

// SDKCreateMember handles SDK POST /b2b/organizations/members, needing the
// same stytch.member actions as the backend face (createMemberRequest.actions).
func (h Handlers) SDKCreateMember(r *http.Request) (any, error) {
	var req createMemberRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	c, err := h.authorizedCaller(r, ResourceMember, req.actions()...)
	if err != nil {
		return nil, err
	}
	req.TrustedMetadata = nil // written by the customer's backend only
	if err := req.refuseForMember(); err != nil {
		return nil, err
	}
	return h.createMember(r, c.Project, c.Organization, req)
}

// SDKSearchMembers handles SDK POST /b2b/organizations/me/members/search
// (stytch.member search: the member list is the organization's directory).
func (h Handlers) SDKSearchMembers(r *http.Request) (any, error) {
	var req MemberSearchParams
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	c, err := h.authorizedCaller(r, ResourceMember, ActionSearch)
	if err != nil {
		return nil, err
	}
	req.OrganizationIDs = []string{c.Organization.OrganizationID}
	res, err := h.Store.SearchMembers(r.Context(), c.Project.ID, req)
	if err != nil {
		return nil, err
	}
	return memberSearchResponse(res), nil
}

// SDKUpdateMember handles SDK PUT /b2b/organizations/members/{member_id},
// authorized exactly like the backend face acting for a member
// (authorizeMemberUpdate). Trusted metadata the browser sends is dropped
// first, not refused: the SDK face never writes it, and the browser SDKs
// may echo a member's fields back.
func (h Handlers) SDKUpdateMember(r *http.Request) (any, error) {
	var u MemberUpdate
	if err := httpapi.Decode(r, &u); err != nil {
		return nil, err
	}
	u.TrustedMetadata = nil // written by the customer's backend only
	c, err := h.sessionCaller(r)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("member_id")
	if err := h.authorizeMemberUpdate(r.Context(), c, id, u); err != nil {
		return nil, err
	}
	return h.updateMember(r.Context(), c.Project, c.Organization, id, u)
}

// SDKDeleteMember handles SDK DELETE /b2b/organizations/members/{member_id}
// (stytch.member delete, or stytch.self delete for the caller).
func (h Handlers) SDKDeleteMember(r *http.Request) (any, error) {
	c, err := h.sessionCaller(r)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("member_id")
	if err := c.AuthorizeMember(r.Context(), id, ActionDelete); err != nil {
		return nil, err
	}
	return h.deleteMember(r.Context(), c.Project, c.Organization, id)
}

// SDKReactivateMember handles SDK PUT /b2b/organizations/members/{member_id}/reactivate
// (stytch.member create: reactivating restores a membership, as the SDK's
// admin screens treat it).
func (h Handlers) SDKReactivateMember(r *http.Request) (any, error) {
	c, err := h.authorizedCaller(r, ResourceMember, ActionCreate)
	if err != nil {
		return nil, err
	}
	return h.reactivateMember(r.Context(), c.Project, c.Organization, r.PathValue("member_id"))
}

// LookupPerIP bounds the public member lookup per client address: anyone
// holding the public token can call it, and each call tells whether an
// email belongs to an organization.
var LookupPerIP = ratelimit.Rule{Name: "member_lookup_ip", Limit: 60, Window: 10 * time.Minute, PerClientAddress: true}

// MemberSummary is all the public member lookup reveals.
type MemberSummary struct {
	Status           string `json:"status"`
	Name             string `json:"name"`
	MemberPasswordID string `json:"member_password_id"`
}

type lookupResponse struct {
	httpapi.Common
	Member *MemberSummary `json:"member"`
}

// LookupMember handles SDK POST /b2b/organizations/members/search, the
// widget's password path: {email_address, organization_id} -> the member's
// status, name and password id, or null. Deleted members and unknown
// organizations are null too, so the answer says no more than "can this
// email log in here with a member record".
func (h Handlers) LookupMember(r *http.Request) (any, error) {
	var req struct {
		EmailAddress   string `json:"email_address"`
		OrganizationID string `json:"organization_id"`
	}
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	if err := httpapi.Required("organization_id", req.OrganizationID); err != nil {
		return nil, err
	}
	email, err := emailaddr.Normalize(req.EmailAddress)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	p := project.CallerFrom(ctx).Project
	if err := h.Limiter.Allow(ctx, LookupPerIP, p.ID+"|"+httpapi.ClientIP(r)); err != nil {
		return nil, err
	}
	o, err := h.Store.Get(ctx, p.ID, req.OrganizationID)
	if errors.Is(err, store.ErrNotFound) {
		return &lookupResponse{}, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := h.Store.MemberByEmail(ctx, h.Store.db.Read(), o.OrganizationID, email)
	if errors.Is(err, store.ErrNotFound) || (err == nil && m.Status == StatusDeleted) {
		return &lookupResponse{}, nil
	}
	if err != nil {
		return nil, err
	}
	return &lookupResponse{Member: &MemberSummary{Status: m.Status, Name: m.Name, MemberPasswordID: m.MemberPasswordID}}, nil
}
