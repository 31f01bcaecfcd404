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
		sdk("PUT /sdk/v1/b2b/organizations/me", h.UpdateMe).LogsAdminChange("organization_updated"),
		sdk("DELETE /sdk/v1/b2b/organizations/me", h.DeleteMe).LogsAdminChange("organization_deleted"),
		sdk("POST /sdk/v1/b2b/organizations/me/members/search", h.SDKSearchMembers),
		sdk("POST /sdk/v1/b2b/organizations/members", h.SDKCreateMember).LogsAdminChange("member_created"),
		sdk("GET /sdk/v1/b2b/organizations/members/me", h.SelfMember),
		sdk("PUT /sdk/v1/b2b/organizations/members/update", h.UpdateSelf).LogsAdminChange("member_updated"),
		sdk("PUT /sdk/v1/b2b/organizations/members/{member_id}", h.SDKUpdateMember).LogsAdminChange("member_updated"),
		sdk("DELETE /sdk/v1/b2b/organizations/members/{member_id}", h.SDKDeleteMember).LogsAdminChange("member_deleted"),
		sdk("PUT /sdk/v1/b2b/organizations/members/{member_id}/reactivate", h.SDKReactivateMember).LogsAdminChange("member_reactivated"),
		sdk("POST /sdk/v1/b2b/organizations/members/search", h.LookupMember),
		sdk("POST /sdk/v1/b2b/organizations/members/unlink_retired_email", h.SDKUnlinkSelfRetired).LogsAdminChange("retired_email_unlinked"),
		sdk("POST /sdk/v1/b2b/organizations/members/{member_id}/unlink_retired_email", h.SDKUnlinkRetired).LogsAdminChange("retired_email_unlinked"),

		backend("POST /v1/b2b/organizations", h.Create).LogsAdminChange("organization_created"),
		backend("GET /v1/b2b/organizations/{organization_id}", h.Get),
		backend("PUT /v1/b2b/organizations/{organization_id}", h.Update).ActsForMember().LogsAdminChange("organization_updated"),
		backend("DELETE /v1/b2b/organizations/{organization_id}", h.Delete).ActsForMember().LogsAdminChange("organization_deleted"),
		backend("POST /v1/b2b/organizations/search", h.Search),
		backend("DELETE /v1/b2b/organizations/{organization_id}/external_id", h.DeleteExternalID).ActsForMember().LogsAdminChange("organization_external_id_deleted"),
		backend("GET /v1/b2b/organizations/{organization_id}/metrics", h.Metrics),
		backend("POST /v1/b2b/organizations/{organization_id}/members", h.CreateMember).ActsForMember().LogsAdminChange("member_created"),
		backend("GET /v1/b2b/organizations/{organization_id}/member", h.GetMember),
		backend("PUT /v1/b2b/organizations/{organization_id}/members/{member_id}", h.UpdateMember).ActsForMember().LogsAdminChange("member_updated"),
		backend("DELETE /v1/b2b/organizations/{organization_id}/members/{member_id}", h.DeleteMember).ActsForMember().LogsAdminChange("member_deleted"),
		// More specific than the root's .../members/{a}/{b} (app), which
		// serves the factor and password deletions.
		backend("DELETE /v1/b2b/organizations/{organization_id}/members/{member_id}/external_id", h.DeleteMemberExternalID).ActsForMember().LogsAdminChange("member_external_id_deleted"),
		backend("PUT /v1/b2b/organizations/{organization_id}/members/{member_id}/reactivate", h.ReactivateMember).ActsForMember().LogsAdminChange("member_reactivated"),
		backend("POST /v1/b2b/organizations/members/search", h.SearchMembers).ActsForMember(),
		backend("GET /v1/b2b/organizations/members/dangerously_get/{member_id}", h.DangerouslyGetMember),
		backend("POST /v1/b2b/organizations/{organization_id}/members/{member_id}/unlink_retired_email", h.UnlinkRetired).ActsForMember().LogsAdminChange("retired_email_unlinked"),
	}
}
