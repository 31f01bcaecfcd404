package emailupdate

import "github.com/latchkey/latchkey/internal/httpapi"

// Routes lists the email-change routes: a member's own, an admin's for a
// member of the same organization, and the backend's.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{
		httpapi.SDKRoute("POST /sdk/v1/b2b/organizations/members/start_email_update", h.SDKSelf).LogsFactorChange("email_update_started"),
		httpapi.SDKRoute("POST /sdk/v1/b2b/organizations/members/{member_id}/start_email_update", h.SDKMember).LogsFactorChange("email_update_started"),
		httpapi.BackendRoute("POST /v1/b2b/organizations/{organization_id}/members/{member_id}/start_email_update", h.Backend).LogsFactorChange("email_update_started").ActsForMember(),
	}
}
