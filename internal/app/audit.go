package app

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/httpapi"
)

// observeRoute wraps every mounted route: it names the route for the
// request metrics and, on the routes whose table declares an audit meaning
// (httpapi.Route.Audit: a login or a factor change), records the outcome in
// the audit log and the login metrics. Doing it here covers every module's
// routes without a line in each handler.
func (a *App) observeRoute(pattern string, au httpapi.Audit, h http.Handler) http.Handler {
	spec := auditSpec{event: audit.Login, method: au.Login}
	if au.Factor != "" {
		spec = auditSpec{event: audit.FactorChange, method: au.Factor}
	}
	audited := spec.method != ""
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

// auditSpec is what a route's outcome means for the audit log.
type auditSpec struct {
	event  string // audit.Login or audit.FactorChange
	method string // login method, or the factor change's action
}

// lockoutTypes are refusals that mean an attempt limit or lockout hit.
var lockoutTypes = map[string]bool{"user_lock_limit_reached": true, "too_many_requests": true}

func (a *App) recordRoute(r *http.Request, spec auditSpec, sdk bool, status int, body []byte) {
	// The project the face's authentication accepted (a public token, or
	// project_id:secret), never the id a refused caller named: anyone may
	// name a project, and its log must hold only what its callers did. A
	// request refused there was no login attempt either, so it counts in
	// no login metric.
	projectID := httpapi.ProjectOf(r.Context())
	if projectID == "" {
		return
	}
	if status == 0 {
		status = http.StatusOK
	}
	ok := status < 300
	subject, errorType := answerOf(r, sdk, ok, body)
	if spec.event == audit.FactorChange && !ok {
		return // a refused change changed nothing
	}
	// The full address, not the one rate limits count, and the User-Agent
	// made storable (the raw header may be invalid UTF-8).
	ip, ua := httpapi.Client(r.Context())
	e := audit.Event{ProjectID: projectID, Type: spec.event, Method: spec.method, Outcome: audit.Success,
		OrganizationID: subject.OrganizationID, MemberID: subject.MemberID, Actor: "backend",
		IP: ip, UserAgent: ua, RequestID: httpapi.RequestID(r.Context())}
	if sdk {
		e.Actor = "sdk"
	}
	if spec.event == audit.Login {
		a.Metrics.Login(spec.method, ok)
		switch {
		case status == httpapi.StatusClientClosedRequest:
			// The client left before an answer: nothing was decided that
			// it could learn, and no limit refused it.
			e.Outcome = audit.Failure
			e.Details = map[string]any{"abandoned_by_client": true}
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
