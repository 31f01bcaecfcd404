package organization

import (
	"net/http"

	"github.com/latchkey/latchkey/internal/httpapi"
)

type unlinkRequest struct {
	EmailID      string `json:"email_id"`
	EmailAddress string `json:"email_address"`
}

func decodeUnlink(r *http.Request) (unlinkRequest, error) {
	var req unlinkRequest
	err := httpapi.Decode(r, &req)
	return req, err
}

// SDKUnlinkSelfRetired handles SDK POST b2b/organizations/members/unlink_retired_email:
// the logged-in member unlinks one of their own retired addresses
// (update.info.unlink.retired-email on stytch.self, which every member
// holds through stytch_member; checked so the route follows the policy
// like the other self routes).
func (h Handlers) SDKUnlinkSelfRetired(r *http.Request) (any, error) {
	req, err := decodeUnlink(r)
	if err != nil {
		return nil, err
	}
	c, err := h.sessionCaller(r)
	if err != nil {
		return nil, err
	}
	if err := c.AuthorizeMember(r.Context(), c.Member.MemberID, ActionUnlinkRetiredEmail); err != nil {
		return nil, err
	}
	return h.unlinkRetired(r, c.Organization, c.Member.MemberID, req)
}

// SDKUnlinkRetired handles SDK POST b2b/organizations/members/{member_id}/unlink_retired_email:
// a member's own addresses, or (admins) another member's of the same
// organization.
func (h Handlers) SDKUnlinkRetired(r *http.Request) (any, error) {
	return h.unlinkRetiredOf(r, h.sessionCaller)
}

// UnlinkRetired handles POST /v1/b2b/organizations/{organization_id}/members/{member_id}/unlink_retired_email.
func (h Handlers) UnlinkRetired(r *http.Request) (any, error) {
	return h.unlinkRetiredOf(r, h.backendCaller)
}

// unlinkRetiredOf unlinks a retired address of the member named in the
// path, for a caller of either face holding update.info.unlink.retired-email
// on that member (the SDK's documented action; changing the address,
// update.info.email, is a different right).
func (h Handlers) unlinkRetiredOf(r *http.Request, caller func(*http.Request) (*SessionCaller, error)) (any, error) {
	req, err := decodeUnlink(r)
	if err != nil {
		return nil, err
	}
	c, err := caller(r)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("member_id")
	if err := c.AuthorizeMember(r.Context(), id, ActionUnlinkRetiredEmail); err != nil {
		return nil, err
	}
	return h.unlinkRetired(r, c.Organization, id, req)
}

// UnlinkResponse answers unlink_retired_email: MemberResponseCommon plus
// organization_id, which the API family declares for this method.
type UnlinkResponse struct {
	MemberResponse
	OrganizationID string `json:"organization_id"`
}

func (h Handlers) unlinkRetired(r *http.Request, o *Organization, memberID string, req unlinkRequest) (any, error) {
	m, err := h.Store.UnlinkRetired(r.Context(), o, memberID, req.EmailID, req.EmailAddress)
	if err != nil {
		return nil, err
	}
	return &UnlinkResponse{MemberResponse: MemberResponse{MemberID: m.MemberID, Member: m, Organization: o},
		OrganizationID: o.OrganizationID}, nil
}
