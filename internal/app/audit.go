package app

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/httpapi"
)

// observeRoute wraps every mounted route: it names the route for the
// request metrics and, on the routes whose table declares an audit meaning
// (httpapi.Route.Audit: a login, a factor change or an administrative
// change), records the outcome in the audit log and the login metrics.
// Doing it here covers every module's routes without a line in each
// handler.
func (a *App) observeRoute(pattern string, au httpapi.Audit, h http.Handler) http.Handler {
	spec := auditSpec{event: audit.Login, method: au.Login}
	switch {
	case au.Factor != "":
		spec = auditSpec{event: audit.FactorChange, method: au.Factor}
	case au.Admin != "":
		spec = auditSpec{event: audit.AdminChange, method: au.Admin}
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
		var ch *changeNote
		if spec.event == audit.AdminChange {
			// The names of the fields the change sent, read as the
			// handler reads the body, and the ids its path named once the
			// handler resolved them (notePath).
			ch = &changeNote{body: httpapi.TapBody(r, 64<<10)}
			r = r.WithContext(context.WithValue(r.Context(), changeKey{}, ch))
		}
		h.ServeHTTP(rec, r)
		a.recordRoute(r, spec, sdk, rec.Status, rec.Body.Bytes(), ch)
	})
}

// auditSpec is what a route's outcome means for the audit log.
type auditSpec struct {
	event  string // audit.Login, audit.FactorChange or audit.AdminChange
	method string // login method, or the change's action
}

// changeNote is what an administrative change's event takes from the
// request besides its answer.
type changeNote struct {
	body *httpapi.BodyTap
	// path is the route's path values as the handler saw them: the
	// backend face resolves organization and member aliases in place
	// (organization.AliasEdge), on a copy of the request this wrapper
	// never sees.
	path map[string]string
}

type changeKey struct{}

// notePath wraps the handler of an administrative-change route: once it
// succeeds, the path values named in pattern, as the handler saw them, are
// kept for the event (changeNote.path).
func notePath(pattern string, h httpapi.HandlerFunc) httpapi.HandlerFunc {
	names := pathNames(pattern)
	return func(r *http.Request) (any, error) {
		out, err := h(r)
		if ch, ok := r.Context().Value(changeKey{}).(*changeNote); ok && err == nil {
			ch.path = make(map[string]string, len(names))
			for _, n := range names {
				ch.path[n] = r.PathValue(n)
			}
		}
		return out, err
	}
}

// pathNames are the wildcard names of a ServeMux pattern.
func pathNames(pattern string) []string {
	var names []string
	for _, seg := range strings.Split(pattern, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			names = append(names, strings.TrimSuffix(strings.Trim(seg, "{}"), "..."))
		}
	}
	return names
}

// lockoutTypes are refusals that mean an attempt limit or lockout hit.
var lockoutTypes = map[string]bool{"user_lock_limit_reached": true, "too_many_requests": true}

func (a *App) recordRoute(r *http.Request, spec auditSpec, sdk bool, status int, body []byte, ch *changeNote) {
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
	subject, errorType, resp := answerOf(r, sdk, ok, body)
	if spec.event != audit.Login && !ok {
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
	switch spec.event {
	case audit.Login:
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
	case audit.FactorChange:
		e.Details = actorDetails(r.Context())
	case audit.AdminChange:
		describeChange(r.Context(), &e, ch, resp)
	}
	if err := a.Audit.Record(r.Context(), e); err != nil {
		a.Metrics.AuditWriteFailed()
		a.Log.Error("audit: record failed", "error", err, "request_id", e.RequestID)
	}
}

// actorDetails names the member whose session made a change
// (actor_member_id), or nothing when the project secret made it: the
// event's MemberID is whom the change is about, which for an admin acting
// on another member is not who acted.
func actorDetails(ctx context.Context) map[string]any {
	if actor, ok := httpapi.ActingMember(ctx); ok {
		return map[string]any{"actor_member_id": actor.MemberID}
	}
	return nil
}

// describeChange completes an administrative change's event e: the
// organization and member changed when the answer did not name them (a
// deletion answers little), from the path, else, on the SDK face, the
// acting member's own organization, where every SDK change is made; the
// other ids that name the object changed (a connection, a client, a
// certificate) from the path or the answer; who acted; and the names of
// the fields the request sent, never their values.
func describeChange(ctx context.Context, e *audit.Event, ch *changeNote, resp respFields) {
	d := actorDetails(ctx)
	if d == nil {
		d = map[string]any{}
	}
	actor, acting := httpapi.ActingMember(ctx)
	var path map[string]string
	if ch != nil {
		path = ch.path
	}
	if e.OrganizationID == "" {
		e.OrganizationID = path["organization_id"]
	}
	if e.OrganizationID == "" && acting && e.Actor == "sdk" {
		e.OrganizationID = actor.OrganizationID
	}
	if e.MemberID == "" {
		e.MemberID = path["member_id"]
	}
	for name, v := range path {
		switch name {
		case "organization_id", "member_id", "project_id":
		default:
			if v != "" {
				d[name] = audit.Clip(v, 128)
			}
		}
	}
	for name, v := range resp.objectIDs() {
		if _, named := d[name]; !named && v != "" {
			d[name] = audit.Clip(v, 128)
		}
	}
	if ch != nil {
		if names := ch.body.FieldNames(); len(names) > 0 {
			d["fields"] = names
		}
	}
	if len(d) > 0 {
		e.Details = d
	}
}

// answerOf is whom the answer is about and, for a failure, its error type:
// from the payload's own Subject when a success named one (a handler that
// returned a session.AuthResponse), else parsed back out of body.
func answerOf(r *http.Request, sdk, ok bool, body []byte) (httpapi.Subject, string, respFields) {
	if s, named := httpapi.AnswerSubject(r.Context()); ok && named {
		return s, "", respFields{}
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
		f.ErrorType, f
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
	// The objects an administrative change's answer names besides
	// organizations and members: an SSO or SCIM connection, an M2M
	// client, a connected app.
	ConnectionID string `json:"connection_id"`
	Connection   struct {
		OrganizationID string `json:"organization_id"`
		ConnectionID   string `json:"connection_id"`
	} `json:"connection"`
	M2MClient struct {
		ClientID string `json:"client_id"`
	} `json:"m2m_client"`
	ConnectedApp struct {
		ClientID string `json:"client_id"`
	} `json:"connected_app"`
}

// objectIDs are the ids, besides organization and member, the answer
// names, by the path wildcard names that would name them.
func (f respFields) objectIDs() map[string]string {
	out := map[string]string{}
	if id := cmp.Or(f.ConnectionID, f.Connection.ConnectionID); id != "" {
		out["connection_id"] = id
	}
	if id := cmp.Or(f.M2MClient.ClientID, f.ConnectedApp.ClientID); id != "" {
		out["client_id"] = id
	}
	return out
}

func (f respFields) memberID() string {
	if f.MemberID != "" {
		return f.MemberID
	}
	return f.Member.MemberID
}

func (f respFields) orgID() string {
	for _, s := range []string{f.OrganizationID, f.Organization.OrganizationID, f.Member.OrganizationID, f.Connection.OrganizationID} {
		if s != "" {
			return s
		}
	}
	return ""
}
