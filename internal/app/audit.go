package app

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/httpapi"
)

// auditSpec says what a route's outcome means for the audit log.
type auditSpec struct {
	event  string // audit.Login or audit.FactorChange
	method string // login method, or the factor change's action
}

// loginRoutes maps API paths (after /sdk/v1/ or /v1/) to the login method
// they check. Module routes ending in /authenticate are covered by
// loginMethodOf without an entry.
var loginRoutes = map[string]string{
	"b2b/magic_links/authenticate":                 "magic_link",
	"b2b/magic_links/discovery/authenticate":       "magic_link",
	"b2b/otps/email/authenticate":                  "email_otp",
	"b2b/otps/email/discovery/authenticate":        "email_otp",
	"b2b/passwords/authenticate":                   "password",
	"b2b/passwords/discovery/authenticate":         "password",
	"b2b/passwords/email/reset":                    "password_reset",
	"b2b/passwords/existing_password/reset":        "password_reset",
	"b2b/passwords/session/reset":                  "password_reset",
	"b2b/passwords/discovery/reset":                "password_reset",
	"b2b/passwords/discovery/email/reset":          "password_reset",
	"b2b/otps/sms/authenticate":                    "sms_otp",
	"b2b/totp/authenticate":                        "totp",
	"b2b/recovery_codes/recover":                   "recovery_code",
	"b2b/discovery/intermediate_sessions/exchange": "discovery_exchange",
	"b2b/sessions/attest":                          "trusted_auth_token",
	"b2b/sessions/exchange_access_token":           "access_token_exchange",
	"b2b/sessions/migrate":                         "session_migration",
}

// factorRoutes maps "METHOD path" to the factor change it makes.
var factorRoutes = map[string]string{
	"POST b2b/totp":                                                                   "totp_created",
	"POST b2b/totp/migrate":                                                           "totp_migrated",
	"DELETE b2b/organizations/members/deleteTOTP":                                     "totp_deleted",
	"DELETE b2b/organizations/members/totp/{member_id}":                               "totp_deleted",
	"DELETE b2b/organizations/members/deletePhoneNumber":                              "phone_deleted",
	"DELETE b2b/organizations/members/mfa_phone_numbers/{member_id}":                  "phone_deleted",
	"DELETE b2b/organizations/members/passwords/{member_password_id}":                 "password_deleted",
	"DELETE b2b/organizations/{organization_id}/members/{a}/{b}":                      "factor_deleted",
	"POST b2b/recovery_codes/rotate":                                                  "recovery_codes_rotated",
	"POST b2b/passwords/migrate":                                                      "password_migrated",
	"POST b2b/organizations/members/start_email_update":                               "email_update_started",
	"POST b2b/organizations/members/{member_id}/start_email_update":                   "email_update_started",
	"POST b2b/organizations/{organization_id}/members/{member_id}/start_email_update": "email_update_started",
}

// auditSpecFor finds what a mounted pattern means for the audit log.
func auditSpecFor(pattern string) (auditSpec, bool) {
	verb, path, _ := strings.Cut(pattern, " ")
	var rest string
	switch {
	case strings.HasPrefix(path, "/sdk/v1/"):
		rest = strings.TrimPrefix(path, "/sdk/v1/")
	case strings.HasPrefix(path, "/v1/"):
		rest = strings.TrimPrefix(path, "/v1/")
	default:
		return auditSpec{}, false
	}
	if a, ok := factorRoutes[verb+" "+rest]; ok {
		return auditSpec{event: audit.FactorChange, method: a}, true
	}
	if m, ok := loginRoutes[rest]; ok {
		return auditSpec{event: audit.Login, method: m}, true
	}
	// A module's login route: b2b/oauth/authenticate, b2b/sso/authenticate...
	if verb == http.MethodPost && strings.HasSuffix(rest, "/authenticate") && !strings.HasPrefix(rest, "b2b/sessions/") {
		parts := strings.Split(strings.TrimPrefix(rest, "b2b/"), "/")
		return auditSpec{event: audit.Login, method: parts[0]}, true
	}
	return auditSpec{}, false
}

// observeRoute wraps every mounted route: it names the route for the
// request metrics and, on login and factor routes, records the outcome in
// the audit log and the login metrics. Doing it here covers every module's
// routes without a line in each handler.
func (a *App) observeRoute(pattern string, h http.Handler) http.Handler {
	spec, audited := auditSpecFor(pattern)
	sdk := strings.Contains(pattern, " /sdk/v1/")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpapi.SetRoute(r.Context(), pattern)
		if !audited {
			h.ServeHTTP(w, r)
			return
		}
		// Login answers are small; the cap bounds memory.
		rec := &httpapi.Recorder{ResponseWriter: w, KeepBody: 64 << 10}
		h.ServeHTTP(rec, r)
		a.recordRoute(r, spec, sdk, rec.Status, rec.Body.Bytes())
	})
}

// lockoutTypes are refusals that mean an attempt limit or lockout hit.
var lockoutTypes = map[string]bool{"user_lock_limit_reached": true, "too_many_requests": true}

func (a *App) recordRoute(r *http.Request, spec auditSpec, sdk bool, status int, body []byte) {
	if status == 0 {
		status = http.StatusOK
	}
	ok := status < 300
	subject, errorType := answerOf(r, sdk, ok, body)
	if spec.event == audit.FactorChange && !ok {
		return // a refused change changed nothing
	}
	user, _, _ := r.BasicAuth()
	projectID := ""
	if sdk {
		if p, err := a.Resolver.ByPublicToken(r.Context(), user); err == nil {
			projectID = p.ID
		}
	} else if status != http.StatusUnauthorized || errorType != "unauthorized_credentials" {
		projectID = user // the backend face authenticated project_id:secret
	}
	e := audit.Event{ProjectID: projectID, Type: spec.event, Method: spec.method, Outcome: audit.Success,
		OrganizationID: subject.OrganizationID, MemberID: subject.MemberID, Actor: "backend",
		IP: httpapi.ClientIP(r), UserAgent: r.UserAgent(), RequestID: httpapi.RequestID(r.Context())}
	if sdk {
		e.Actor = "sdk"
	}
	if spec.event == audit.Login {
		a.Metrics.Login(spec.method, ok)
		switch {
		case !ok && (lockoutTypes[errorType] || status == http.StatusTooManyRequests):
			a.Metrics.Lockout(spec.method)
			e.Type, e.Outcome = audit.Lockout, audit.Failure
			e.Details = map[string]any{"error_type": errorType}
		case !ok:
			e.Outcome = audit.Failure
			e.Details = map[string]any{"error_type": errorType}
		case subject.MFAPending:
			e.Details = map[string]any{"mfa_required": true}
		}
	}
	if projectID == "" {
		return // no project to file it under (a bad public token or secret)
	}
	if err := a.Audit.Record(r.Context(), e); err != nil {
		a.Metrics.AuditWriteFailed()
		a.Log.Error("audit: record failed", "error", err, "request_id", e.RequestID)
	}
}

// answerOf is whom the answer is about and, for a failure, its error type:
// from the payload's own Subject when a success named one (a handler that
// returned a session.AuthResponse), else parsed back out of body.
func answerOf(r *http.Request, sdk, ok bool, body []byte) (httpapi.Subject, string) {
	if s, named := httpapi.AnswerSubject(r.Context()); ok && named {
		return s, ""
	}
	var resp struct {
		Data json.RawMessage `json:"data"`
		respFields
	}
	_ = json.Unmarshal(body, &resp)
	f := resp.respFields
	if sdk && len(resp.Data) > 0 {
		_ = json.Unmarshal(resp.Data, &f)
	}
	return httpapi.Subject{OrganizationID: f.orgID(), MemberID: f.memberID(), MFAPending: f.IST != "" && f.SessionToken == ""},
		f.ErrorType
}

// respFields are the response fields an audit event takes its subject from.
type respFields struct {
	ErrorType      string `json:"error_type"`
	MemberID       string `json:"member_id"`
	OrganizationID string `json:"organization_id"`
	IST            string `json:"intermediate_session_token"`
	SessionToken   string `json:"session_token"`
	Member         struct {
		MemberID       string `json:"member_id"`
		OrganizationID string `json:"organization_id"`
	} `json:"member"`
	Organization struct {
		OrganizationID string `json:"organization_id"`
	} `json:"organization"`
}

func (f respFields) memberID() string {
	if f.MemberID != "" {
		return f.MemberID
	}
	return f.Member.MemberID
}

func (f respFields) orgID() string {
	for _, s := range []string{f.OrganizationID, f.Organization.OrganizationID, f.Member.OrganizationID} {
		if s != "" {
			return s
		}
	}
	return ""
}
