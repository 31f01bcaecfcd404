package emailotp

import "github.com/latchkey/latchkey/internal/httpapi"

// Routes lists the email-code login routes on both API faces.
func (h Handlers) Routes() []httpapi.Route {
	sdk := httpapi.SDKRouteFor(Product)
	return []httpapi.Route{
		sdk("POST /sdk/v1/b2b/otps/email/login_or_signup", h.LoginOrSignup),
		sdk("POST /sdk/v1/b2b/otps/email/authenticate", h.Authenticate).LogsLogin("email_otp"),

		httpapi.BackendRoute("POST /v1/b2b/otps/email/login_or_signup", h.LoginOrSignup),
		httpapi.BackendRoute("POST /v1/b2b/otps/email/authenticate", h.Authenticate).LogsLogin("email_otp"),
	}
}
