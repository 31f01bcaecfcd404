package organization

import "github.com/latchkey/latchkey/internal/httpapi"

// Routes lists the organization and member routes on both API faces. On
// the SDK face the caller's own organization and membership are gated by
// the session; the slug search and the member lookup serve the login
// screens before there is one.
func (h Handlers) Routes() []httpapi.Route {
	sdk, backend := httpapi.SDKRoute, httpapi.BackendRoute
	return []httpapi.Route{
		sdk("POST /sdk/v1/b2b/organizations/search", h.SearchBySlug),
		sdk("GET /sdk/v1/b2b/organizations/me", h.GetMe),
		sdk("PUT /sdk/v1/b2b/organizations/me", h.UpdateMe),
		sdk("DELETE /sdk/v1/b2b/organizations/me", h.DeleteMe),
		sdk("POST /sdk/v1/b2b/organizations/me/members/search", h.SDKSearchMembers),
		sdk("POST /sdk/v1/b2b/organizations/members", h.SDKCreateMember),
		sdk("GET /sdk/v1/b2b/organizations/members/me", h.SelfMember),
		sdk("PUT /sdk/v1/b2b/organizations/members/update", h.UpdateSelf),
		sdk("PUT /sdk/v1/b2b/organizations/members/{member_id}", h.SDKUpdateMember),
		sdk("DELETE /sdk/v1/b2b/organizations/members/{member_id}", h.SDKDeleteMember),
		sdk("PUT /sdk/v1/b2b/organizations/members/{member_id}/reactivate", h.SDKReactivateMember),
		sdk("POST /sdk/v1/b2b/organizations/members/search", h.LookupMember),
		sdk("POST /sdk/v1/b2b/organizations/members/unlink_retired_email", h.SDKUnlinkSelfRetired),
		sdk("POST /sdk/v1/b2b/organizations/members/{member_id}/unlink_retired_email", h.SDKUnlinkRetired),

		backend("POST /v1/b2b/organizations", h.Create),
		backend("GET /v1/b2b/organizations/{organization_id}", h.Get),
		backend("PUT /v1/b2b/organizations/{organization_id}", h.Update).ActsForMember(),
		backend("DELETE /v1/b2b/organizations/{organization_id}", h.Delete).ActsForMember(),
		backend("POST /v1/b2b/organizations/search", h.Search),
		backend("DELETE /v1/b2b/organizations/{organization_id}/external_id", h.DeleteExternalID).ActsForMember(),
		backend("GET /v1/b2b/organizations/{organization_id}/metrics", h.Metrics),
		backend("POST /v1/b2b/organizations/{organization_id}/members", h.CreateMember).ActsForMember(),
		backend("GET /v1/b2b/organizations/{organization_id}/member", h.GetMember),
		backend("PUT /v1/b2b/organizations/{organization_id}/members/{member_id}", h.UpdateMember).ActsForMember(),
		backend("DELETE /v1/b2b/organizations/{organization_id}/members/{member_id}", h.DeleteMember).ActsForMember(),
		// More specific than the root's .../members/{a}/{b} (app), which
		// serves the factor and password deletions.
		backend("DELETE /v1/b2b/organizations/{organization_id}/members/{member_id}/external_id", h.DeleteMemberExternalID).ActsForMember(),
		backend("PUT /v1/b2b/organizations/{organization_id}/members/{member_id}/reactivate", h.ReactivateMember).ActsForMember(),
		backend("POST /v1/b2b/organizations/members/search", h.SearchMembers).ActsForMember(),
		backend("GET /v1/b2b/organizations/members/dangerously_get/{member_id}", h.DangerouslyGetMember),
		backend("POST /v1/b2b/organizations/{organization_id}/members/{member_id}/unlink_retired_email", h.UnlinkRetired).ActsForMember(),
	}
}
