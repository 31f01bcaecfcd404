package password

import "github.com/latchkey/latchkey/internal/httpapi"

// Routes lists the password routes on both API faces: strength checks,
// logins, imports, every reset path and the discovery variants. Deleting a
// member's password is also on the backend's shared member-subresource
// route, which the root owns (it is MFA's too).
func (h Handlers) Routes() []httpapi.Route {
	sdk := httpapi.SDKRouteFor(Product)
	backend := httpapi.BackendRoute
	return []httpapi.Route{
		sdk("POST /sdk/v1/b2b/passwords/strength_check", h.StrengthCheck),
		sdk("POST /sdk/v1/b2b/passwords/authenticate", h.Authenticate).LogsLogin("password"),
		sdk("POST /sdk/v1/b2b/passwords/email/reset/start", h.SDKResetStart),
		sdk("POST /sdk/v1/b2b/passwords/email/reset", h.ResetByEmail).LogsLogin("password_reset"),
		sdk("POST /sdk/v1/b2b/passwords/existing_password/reset", h.ResetExisting).LogsLogin("password_reset"),
		sdk("POST /sdk/v1/b2b/passwords/session/reset", h.SDKResetBySession).LogsLogin("password_reset"),
		sdk("POST /sdk/v1/b2b/passwords/discovery/authenticate", h.DiscoveryAuthenticate).LogsLogin("password"),
		sdk("POST /sdk/v1/b2b/passwords/discovery/reset/start", h.DiscoveryResetStart),
		sdk("POST /sdk/v1/b2b/passwords/discovery/reset", h.DiscoveryReset).LogsLogin("password_reset"),
		// A member's own password or, for an admin, a member's of the same
		// organization; not gated by the product, like the other member
		// self-service routes.
		httpapi.SDKRoute("DELETE /sdk/v1/b2b/organizations/members/passwords/{member_password_id}", h.SDKDelete).LogsFactorChange("password_deleted"),

		backend("POST /v1/b2b/passwords/strength_check", h.StrengthCheck),
		backend("POST /v1/b2b/passwords/migrate", h.Migrate).LogsFactorChange("password_migrated"),
		backend("POST /v1/b2b/passwords/authenticate", h.Authenticate).LogsLogin("password"),
		backend("POST /v1/b2b/passwords/email/reset/start", h.BackendResetStart),
		backend("POST /v1/b2b/passwords/email/reset", h.ResetByEmail).LogsLogin("password_reset"),
		backend("POST /v1/b2b/passwords/email/require_reset", h.RequireReset).ActsForMember().LogsAdminChange("password_reset_required"),
		backend("POST /v1/b2b/passwords/existing_password/reset", h.ResetExisting).LogsLogin("password_reset"),
		backend("POST /v1/b2b/passwords/session/reset", h.BackendResetBySession).LogsLogin("password_reset"),
		backend("POST /v1/b2b/passwords/discovery/authenticate", h.DiscoveryAuthenticate).LogsLogin("password"),
		backend("POST /v1/b2b/passwords/discovery/email/reset/start", h.DiscoveryResetStart),
		backend("POST /v1/b2b/passwords/discovery/email/reset", h.DiscoveryReset).LogsLogin("password_reset"),
	}
}
