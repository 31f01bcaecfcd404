package magiclink

import "github.com/latchkey/latchkey/internal/httpapi"

// Routes lists the magic-link routes on both API faces: login or signup,
// redeeming a link, and invitations.
func (h Handlers) Routes() []httpapi.Route {
	sdk := httpapi.SDKRouteFor(Product)
	backend := httpapi.BackendRoute
	return []httpapi.Route{
		sdk("POST /sdk/v1/b2b/magic_links/email/login_or_signup", h.LoginOrSignup),
		sdk("POST /sdk/v1/b2b/magic_links/authenticate", h.Authenticate).LogsLogin("magic_link"),
		sdk("POST /sdk/v1/b2b/magic_links/email/invite", h.SDKInvite).LogsAdminChange("member_invited"),

		backend("POST /v1/b2b/magic_links/email/login_or_signup", h.LoginOrSignup),
		backend("POST /v1/b2b/magic_links/authenticate", h.Authenticate).LogsLogin("magic_link"),
		backend("POST /v1/b2b/magic_links/email/invite", h.BackendInvite).ActsForMember().LogsAdminChange("member_invited"),
	}
}
