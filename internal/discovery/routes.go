package discovery

import (
	"github.com/latchkey/latchkey/internal/emailotp"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/magiclink"
)

// Routes lists the discovery routes on both API faces. Proving an address
// by link or code is gated by the magic-link or email-code product, as the
// organization login by the same means is; listing, creating and entering
// organizations is open to any discovered session. Every route that
// answers a session or an intermediate session is audited as a login:
// creating an organization logs its first member in, and a session
// exchange starts a session for the person's membership of another
// organization.
func (h Handlers) Routes() []httpapi.Route {
	sdk, backend := httpapi.SDKRoute, httpapi.BackendRoute
	return []httpapi.Route{
		sdk("POST /sdk/v1/b2b/magic_links/email/discovery/send", h.SendLink).ForProduct(magiclink.Product),
		sdk("POST /sdk/v1/b2b/magic_links/discovery/authenticate", h.AuthenticateLink).ForProduct(magiclink.Product).LogsLogin("magic_link"),
		sdk("POST /sdk/v1/b2b/otps/email/discovery/send", h.SendCode).ForProduct(emailotp.Product),
		sdk("POST /sdk/v1/b2b/otps/email/discovery/authenticate", h.AuthenticateCode).ForProduct(emailotp.Product).LogsLogin("email_otp"),
		sdk("POST /sdk/v1/b2b/discovery/organizations", h.Organizations),
		sdk("POST /sdk/v1/b2b/discovery/organizations/create", h.Create).LogsLogin("discovery_organization_create"),
		sdk("POST /sdk/v1/b2b/discovery/intermediate_sessions/exchange", h.Exchange).LogsLogin("discovery_exchange"),
		sdk("POST /sdk/v1/b2b/sessions/exchange", h.SessionExchange).LogsLogin("session_exchange"),

		backend("POST /v1/b2b/magic_links/email/discovery/send", h.SendLink),
		backend("POST /v1/b2b/magic_links/discovery/authenticate", h.AuthenticateLink).LogsLogin("magic_link"),
		backend("POST /v1/b2b/otps/email/discovery/send", h.SendCode),
		backend("POST /v1/b2b/otps/email/discovery/authenticate", h.AuthenticateCode).LogsLogin("email_otp"),
		backend("POST /v1/b2b/discovery/organizations", h.Organizations),
		backend("POST /v1/b2b/discovery/organizations/create", h.Create).LogsLogin("discovery_organization_create"),
		backend("POST /v1/b2b/discovery/intermediate_sessions/exchange", h.Exchange).LogsLogin("discovery_exchange"),
		backend("POST /v1/b2b/sessions/exchange", h.SessionExchange).LogsLogin("session_exchange"),
	}
}
