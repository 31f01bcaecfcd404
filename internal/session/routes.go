package session

import "github.com/latchkey/latchkey/internal/httpapi"

// Routes lists the session check, listing and revocation on both API
// faces. The JWKS, public and unauthenticated, is mounted by the root
// beside them.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{
		httpapi.SDKRoute("POST /sdk/v1/b2b/sessions/authenticate", h.SDKAuthenticate),
		httpapi.SDKRoute("POST /sdk/v1/b2b/sessions/revoke", h.SDKRevoke),
		httpapi.SDKRoute("POST /sdk/v1/b2b/sessions/revoke/{member_id}", h.SDKRevokeForMember).LogsAdminChange("sessions_revoked"),
		httpapi.BackendRoute("GET /v1/b2b/sessions", h.BackendList),
		httpapi.BackendRoute("POST /v1/b2b/sessions/authenticate", h.BackendAuthenticate),
		httpapi.BackendRoute("POST /v1/b2b/sessions/revoke", h.BackendRevoke).ActsForMember().LogsAdminChange("sessions_revoked"),
	}
}
