package app

import (
	"net/http"
	"net/url"

	"github.com/latchkey/latchkey/internal/devmode"
	"github.com/latchkey/latchkey/internal/discovery"
	"github.com/latchkey/latchkey/internal/emailotp"
	"github.com/latchkey/latchkey/internal/emailupdate"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/magiclink"
	"github.com/latchkey/latchkey/internal/mfa"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/password"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/telemetry"
)

// route is one line of the route table.
type route struct {
	pattern string
	h       httpapi.HandlerFunc
	product string // SDK face only: the product that must be enabled
}

// Handler assembles the HTTP handler. Every route of both API faces is
// listed here, so the whole surface reads in one screen.
func (a *App) Handler() http.Handler {
	members := memberSessions{sessions: a.Sessions}
	orgs := organization.Handlers{Store: a.Orgs, Sessions: members, Limiter: a.Limiter}
	sess := session.Handlers{Sessions: a.Sessions, Projects: a.Projects, Authz: a.RBAC}
	ml := magiclink.Handlers{Service: a.magicLinks, Sessions: members}
	otp := emailotp.Handlers{Service: a.emailOTP}
	pw := password.Handlers{Service: a.passwords, Sessions: members}
	disc := discovery.Handlers{Service: a.discovery}
	mfaSDK, mfaAPI := mfa.Handlers{Service: a.mfa, Sessions: members}, mfa.Handlers{Service: a.mfa, Backend: true, Sessions: members}
	emailUpdate := emailupdate.Handlers{Service: a.emailUpdate, Sessions: members}
	origins := project.OriginPolicy{Resolver: a.Resolver, BaseOrigin: origin(a.Config.BaseURL)}
	events := telemetry.Handler{DB: a.DB, Clock: a.Clock, Resolver: a.Resolver, Origins: origins, Limiter: a.Limiter,
		MaxPerIP: a.Config.EventsMaxPerIP, MaxPerProject: a.Config.EventsMaxPerProject}

	// SDK face: {"data": ...} envelope, Basic public_token:session_token.
	sdkRoutes := []route{
		{"POST /sdk/v1/b2b/organizations/search", orgs.SearchBySlug, ""},
		{"POST /sdk/v1/b2b/magic_links/email/login_or_signup", ml.LoginOrSignup, magiclink.Product},
		{"POST /sdk/v1/b2b/magic_links/authenticate", ml.Authenticate, magiclink.Product},
		{"POST /sdk/v1/b2b/otps/email/login_or_signup", otp.LoginOrSignup, emailotp.Product},
		{"POST /sdk/v1/b2b/otps/email/authenticate", otp.Authenticate, emailotp.Product},
		// Passwords (issue 4).
		{"POST /sdk/v1/b2b/passwords/strength_check", pw.StrengthCheck, password.Product},
		{"POST /sdk/v1/b2b/passwords/authenticate", pw.Authenticate, password.Product},
		{"POST /sdk/v1/b2b/passwords/email/reset/start", pw.SDKResetStart, password.Product},
		{"POST /sdk/v1/b2b/passwords/email/reset", pw.ResetByEmail, password.Product},
		{"POST /sdk/v1/b2b/passwords/existing_password/reset", pw.ResetExisting, password.Product},
		{"POST /sdk/v1/b2b/passwords/session/reset", pw.SDKResetBySession, password.Product},
		{"POST /sdk/v1/b2b/passwords/discovery/authenticate", pw.DiscoveryAuthenticate, password.Product},
		{"POST /sdk/v1/b2b/passwords/discovery/reset/start", pw.DiscoveryResetStart, password.Product},
		{"POST /sdk/v1/b2b/passwords/discovery/reset", pw.DiscoveryReset, password.Product},
		{"POST /sdk/v1/b2b/sessions/authenticate", sess.SDKAuthenticate, ""},
		{"POST /sdk/v1/b2b/sessions/revoke", sess.SDKRevoke, ""},

		// Organizations and members (issue 3): the caller's own organization,
		// gated by the session; the member lookup of the password path.
		{"GET /sdk/v1/b2b/organizations/me", orgs.GetMe, ""},
		{"PUT /sdk/v1/b2b/organizations/me", orgs.UpdateMe, ""},
		{"DELETE /sdk/v1/b2b/organizations/me", orgs.DeleteMe, ""},
		{"POST /sdk/v1/b2b/organizations/me/members/search", orgs.SDKSearchMembers, ""},
		{"POST /sdk/v1/b2b/organizations/members", orgs.SDKCreateMember, ""},
		{"GET /sdk/v1/b2b/organizations/members/me", orgs.SelfMember, ""},
		{"PUT /sdk/v1/b2b/organizations/members/update", orgs.UpdateSelf, ""},
		{"PUT /sdk/v1/b2b/organizations/members/{member_id}", orgs.SDKUpdateMember, ""},
		{"DELETE /sdk/v1/b2b/organizations/members/{member_id}", orgs.SDKDeleteMember, ""},
		{"PUT /sdk/v1/b2b/organizations/members/{member_id}/reactivate", orgs.SDKReactivateMember, ""},
		{"POST /sdk/v1/b2b/organizations/members/search", orgs.LookupMember, ""},
		{"POST /sdk/v1/b2b/magic_links/email/invite", ml.SDKInvite, magiclink.Product},

		// Discovery.
		{"POST /sdk/v1/b2b/magic_links/email/discovery/send", disc.SendLink, magiclink.Product},
		{"POST /sdk/v1/b2b/magic_links/discovery/authenticate", disc.AuthenticateLink, magiclink.Product},
		{"POST /sdk/v1/b2b/otps/email/discovery/send", disc.SendCode, emailotp.Product},
		{"POST /sdk/v1/b2b/otps/email/discovery/authenticate", disc.AuthenticateCode, emailotp.Product},
		{"POST /sdk/v1/b2b/discovery/organizations", disc.Organizations, ""},
		{"POST /sdk/v1/b2b/discovery/organizations/create", disc.Create, ""},
		{"POST /sdk/v1/b2b/discovery/intermediate_sessions/exchange", disc.Exchange, ""},
		{"POST /sdk/v1/b2b/sessions/exchange", disc.SessionExchange, ""},
		// Multi-factor authentication.
		{"POST /sdk/v1/b2b/otps/sms/send", mfaSDK.SendSMS, ""},
		{"POST /sdk/v1/b2b/otps/sms/authenticate", mfaSDK.AuthenticateSMS, ""},
		{"POST /sdk/v1/b2b/totp", mfaSDK.CreateTOTP, ""},
		{"POST /sdk/v1/b2b/totp/authenticate", mfaSDK.AuthenticateTOTP, ""},
		{"POST /sdk/v1/b2b/recovery_codes/recover", mfaSDK.Recover, ""},
		{"POST /sdk/v1/b2b/recovery_codes/rotate", mfaSDK.RotateRecoveryCodes, ""},
		{"GET /sdk/v1/b2b/recovery_codes", mfaSDK.GetRecoveryCodes, ""},
		{"DELETE /sdk/v1/b2b/organizations/members/deleteTOTP", mfaSDK.DeleteSelfTOTP, ""},
		{"DELETE /sdk/v1/b2b/organizations/members/deletePhoneNumber", mfaSDK.DeleteSelfPhone, ""},

		// Member self-service and admin routes of 3.11/3.12: email change,
		// retired addresses, password and MFA factor deletion (self, or an
		// admin for a member of the same organization).
		{"POST /sdk/v1/b2b/organizations/members/start_email_update", emailUpdate.SDKSelf, ""},
		{"POST /sdk/v1/b2b/organizations/members/{member_id}/start_email_update", emailUpdate.SDKMember, ""},
		{"POST /sdk/v1/b2b/organizations/members/unlink_retired_email", orgs.SDKUnlinkSelfRetired, ""},
		{"POST /sdk/v1/b2b/organizations/members/{member_id}/unlink_retired_email", orgs.SDKUnlinkRetired, ""},
		{"DELETE /sdk/v1/b2b/organizations/members/passwords/{member_password_id}", pw.SDKDelete, ""},
		{"DELETE /sdk/v1/b2b/organizations/members/mfa_phone_numbers/{member_id}", mfaSDK.SDKDeleteMemberPhone, ""},
		{"DELETE /sdk/v1/b2b/organizations/members/totp/{member_id}", mfaSDK.SDKDeleteMemberTOTP, ""},
	}
	// Backend face: flat JSON, Basic project_id:secret.
	backendRoutes := []route{
		{"POST /v1/b2b/organizations", orgs.Create, ""},
		{"GET /v1/b2b/organizations/{organization_id}", orgs.Get, ""},
		{"PUT /v1/b2b/organizations/{organization_id}", orgs.Update, ""},
		{"DELETE /v1/b2b/organizations/{organization_id}", orgs.Delete, ""},
		{"POST /v1/b2b/organizations/{organization_id}/members", orgs.CreateMember, ""},
		{"GET /v1/b2b/organizations/{organization_id}/member", orgs.GetMember, ""},
		{"POST /v1/b2b/magic_links/email/login_or_signup", ml.LoginOrSignup, ""},
		{"POST /v1/b2b/magic_links/authenticate", ml.Authenticate, ""},
		{"POST /v1/b2b/otps/email/login_or_signup", otp.LoginOrSignup, ""},
		{"POST /v1/b2b/otps/email/authenticate", otp.Authenticate, ""},
		// Passwords (issue 4).
		{"POST /v1/b2b/passwords/strength_check", pw.StrengthCheck, ""},
		{"POST /v1/b2b/passwords/migrate", pw.Migrate, ""},
		{"POST /v1/b2b/passwords/authenticate", pw.Authenticate, ""},
		{"POST /v1/b2b/passwords/email/reset/start", pw.BackendResetStart, ""},
		{"POST /v1/b2b/passwords/email/reset", pw.ResetByEmail, ""},
		{"POST /v1/b2b/passwords/email/require_reset", pw.RequireReset, ""},
		{"POST /v1/b2b/passwords/existing_password/reset", pw.ResetExisting, ""},
		{"POST /v1/b2b/passwords/session/reset", pw.BackendResetBySession, ""},
		{"POST /v1/b2b/passwords/discovery/authenticate", pw.DiscoveryAuthenticate, ""},
		{"POST /v1/b2b/passwords/discovery/email/reset/start", pw.DiscoveryResetStart, ""},
		{"POST /v1/b2b/passwords/discovery/email/reset", pw.DiscoveryReset, ""},
		{"POST /v1/b2b/sessions/authenticate", sess.BackendAuthenticate, ""},
		{"POST /v1/b2b/sessions/revoke", sess.BackendRevoke, ""},

		// Organizations and members (issue 3).
		{"POST /v1/b2b/organizations/search", orgs.Search, ""},
		{"DELETE /v1/b2b/organizations/{organization_id}/external_id", orgs.DeleteExternalID, ""},
		{"PUT /v1/b2b/organizations/{organization_id}/members/{member_id}", orgs.UpdateMember, ""},
		{"DELETE /v1/b2b/organizations/{organization_id}/members/{member_id}", orgs.DeleteMember, ""},
		{"PUT /v1/b2b/organizations/{organization_id}/members/{member_id}/reactivate", orgs.ReactivateMember, ""},
		{"POST /v1/b2b/organizations/members/search", orgs.SearchMembers, ""},
		{"GET /v1/b2b/organizations/members/dangerously_get/{member_id}", orgs.DangerouslyGetMember, ""},
		{"POST /v1/b2b/magic_links/email/invite", ml.BackendInvite, ""},

		// Discovery.
		{"POST /v1/b2b/magic_links/email/discovery/send", disc.SendLink, ""},
		{"POST /v1/b2b/magic_links/discovery/authenticate", disc.AuthenticateLink, ""},
		{"POST /v1/b2b/otps/email/discovery/send", disc.SendCode, ""},
		{"POST /v1/b2b/otps/email/discovery/authenticate", disc.AuthenticateCode, ""},
		{"POST /v1/b2b/discovery/organizations", disc.Organizations, ""},
		{"POST /v1/b2b/discovery/organizations/create", disc.Create, ""},
		{"POST /v1/b2b/discovery/intermediate_sessions/exchange", disc.Exchange, ""},
		{"POST /v1/b2b/sessions/exchange", disc.SessionExchange, ""},
		// Multi-factor authentication. The DELETE covers .../members/{member_id}/totp,
		// .../members/mfa_phone_numbers/{member_id} and .../members/passwords/{member_password_id}
		// (see deleteMemberSubresource).
		{"POST /v1/b2b/otps/sms/send", mfaAPI.SendSMS, ""},
		{"POST /v1/b2b/otps/sms/authenticate", mfaAPI.AuthenticateSMS, ""},
		{"POST /v1/b2b/totp", mfaAPI.CreateTOTP, ""},
		{"POST /v1/b2b/totp/authenticate", mfaAPI.AuthenticateTOTP, ""},
		{"POST /v1/b2b/totp/migrate", mfaAPI.MigrateTOTP, ""},
		{"POST /v1/b2b/recovery_codes/recover", mfaAPI.Recover, ""},
		{"GET /v1/b2b/recovery_codes/{organization_id}/{member_id}", mfaAPI.GetRecoveryCodes, ""},
		{"POST /v1/b2b/recovery_codes/rotate", mfaAPI.RotateRecoveryCodes, ""},
		{"DELETE /v1/b2b/organizations/{organization_id}/members/{a}/{b}", deleteMemberSubresource(pw, mfaAPI), ""},

		// Member email change and retired addresses.
		{"POST /v1/b2b/organizations/{organization_id}/members/{member_id}/start_email_update", emailUpdate.Backend, ""},
		{"POST /v1/b2b/organizations/{organization_id}/members/{member_id}/unlink_retired_email", orgs.UnlinkRetired, ""},
	}

	sdkAuth := func(h http.Handler) http.Handler {
		return httpapi.Chain(h, origins.RequireOrigin(), a.Resolver.SDKAuth())
	}
	backendAuth := func(h http.Handler) http.Handler { return httpapi.Chain(h, a.Resolver.BackendAuth()) }
	a.routes.reset()
	sdk := newRouteMux(&a.routes, true, a.observeRoute)
	for _, rt := range sdkRoutes {
		sdk.Handle(rt.pattern, sdkAuth(httpapi.Handle(httpapi.SDK, requireProduct(rt.product, rt.h))))
	}
	// Bootstrap names its project in the path; events name it per event.
	sdk.Handle("GET /sdk/v1/projects/bootstrap/{public_token}",
		httpapi.Handle(httpapi.SDK, project.BootstrapHandler(a.Resolver, a.emailDomain(), a.RBAC)))
	sdk.Handle("POST /sdk/v1/events", httpapi.Handle(httpapi.SDK, events.Post))

	mux := newRouteMux(&a.routes, false, a.observeRoute)
	const sdkMount = "/sdk/v1/"
	sdkFront := httpapi.WithCORS(origins)
	mux.ServeMux.Handle(sdkMount, httpapi.Chain(httpapi.JSONNotFound(sdk.ServeMux), sdkFront))
	for _, rt := range backendRoutes {
		mux.Handle(rt.pattern, backendAuth(httpapi.Handle(httpapi.Backend, rt.h)))
	}
	a.mountModules(mux, sdk, sdkAuth, backendAuth)
	mux.Handle("GET /v1/b2b/sessions/jwks/{project_id}", httpapi.Handle(httpapi.Backend, sess.JWKS))
	mux.Handle("GET /widget/{file...}", a.widgetHandler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("GET /readyz", a.ready)
	if a.Config.MetricsAddr == "" {
		mux.Handle("GET /metrics", a.Metrics.Handler())
	}
	if a.Config.Dev {
		mb := devmode.MailboxHandler(a.Outbox)
		mux.Handle("GET /dev/mailbox", mb)
		mux.Handle("GET /dev/mailbox/messages", mb)
		mux.Handle("GET /{$}", devmode.DemoHandler(a.Projects, a.Orgs, a.Config.BaseURL))
		devmode.NewOAuthMock(func() string { return a.Config.BaseURL }).Register(mux)
		a.DevSAML.Register(mux)
		a.DevOIDC.Register(mux)
	}

	// Routes without wildcards, the session check's among them, are looked
	// up by path first instead of matched by the mux (twice for the SDK
	// face); a hit is served through the same chain as by the muxes.
	exact := exactRoutes(mux, sdk, sdkMount, sdkFront)
	return httpapi.Chain(exact.Handler(httpapi.JSONNotFound(mux.ServeMux)),
		httpapi.WithObserver(a.Metrics.ObserveRequest),
		httpapi.WithRequestID(requestIDEnv(a.Config.Dev)),
		httpapi.WithClientIP(a.trustedProxies),
		httpapi.WithLogging(a.Log),
		httpapi.WithRecover(),
		httpapi.WithSecurityHeaders(a.Config.SecureCookies()),
		httpapi.WithBodyLimit(a.Config.BodyLimit),
		httpapi.WithCleanInput(),
	)
}

func requireProduct(product string, h httpapi.HandlerFunc) httpapi.HandlerFunc {
	if product == "" {
		return h
	}
	return func(r *http.Request) (any, error) {
		if err := project.RequireProduct(r.Context(), product); err != nil {
			return nil, err
		}
		return h(r)
	}
}

func (a *App) ready(w http.ResponseWriter, r *http.Request) {
	if err := a.DB.Ping(r.Context()); err != nil {
		a.Log.Error("readyz: database unreachable", "error", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func requestIDEnv(dev bool) string {
	if dev {
		return "test"
	}
	return "live"
}

func origin(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
