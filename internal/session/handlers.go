package session

import (
	"net/http"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
)

// Handlers serves the session routes of both faces.
type Handlers struct {
	Sessions *Service
	Projects *project.Store
	Authz    Authorizer
}

// FailuresPerIP bounds failed session checks per client address
// (GuardUnguessable: a valid session always passes, so a whole office
// behind one NAT reloading pages with expired cookies cannot lock out its
// colleagues' valid sessions).
var FailuresPerIP = ratelimit.Rule{Name: "session_fail_ip", Limit: 600, Window: 10 * time.Minute, PerClientAddress: true}

// authenticate runs a session check under the failure limit (Check).
func (h Handlers) authenticate(r *http.Request, p *project.Project, cred Credential, duration *int) (*SessionResponse, error) {
	return h.Sessions.Check(r.Context(), p, httpapi.ClientIP(r), cred, duration)
}

type refreshRequest struct {
	SessionDurationMinutes *int                `json:"session_duration_minutes"`
	AuthorizationCheck     *AuthorizationCheck `json:"authorization_check"`
}

// StringField lets httpapi.Decode read the SDK's usual body, {}, without
// encoding/json (httpapi.StringFields). The request has no plain string
// field, so every key declines: a body with any key still goes to
// encoding/json.
func (r *refreshRequest) StringField(string) *string { return nil }

// SDKAuthenticate handles SDK POST /b2b/sessions/authenticate: the session
// is the Basic-auth password. A caller without one gets
// unauthorized_credentials, which the SDK treats as "logged out".
func (h Handlers) SDKAuthenticate(r *http.Request) (any, error) {
	var req refreshRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	c := project.CallerFrom(r.Context())
	if c.SessionToken == "" {
		return nil, apierr.New(apierr.UnauthorizedCredentials).WithMessage("No session token was sent.")
	}
	ch, verdict := h.authorizing(c.Project, change{duration: req.SessionDurationMinutes}, req.AuthorizationCheck)
	out, err := h.Sessions.check(r.Context(), c.Project, httpapi.ClientIP(r), Credential{Token: c.SessionToken}, ch)
	if err != nil {
		return nil, err
	}
	if verdict == nil {
		return h.Sessions.encoded(out, httpapi.SDK), nil
	}
	return &VerdictResponse{SessionResponse: out, Verdict: verdict}, nil
}

// SDKRevoke handles SDK POST /b2b/sessions/revoke for the caller's session.
// The token is the client's, so a token that names no session counts
// against the client's address as a failed session check does
// (FailuresPerIP): otherwise the revoke would answer every guess, uncounted,
// with whether it named a session.
func (h Handlers) SDKRevoke(r *http.Request) (any, error) {
	if err := decodeNoFields(r); err != nil {
		return nil, err
	}
	c := project.CallerFrom(r.Context())
	if c.SessionToken == "" {
		return nil, apierr.New(apierr.UserUnauthenticated)
	}
	err := h.Sessions.guardFailures(r.Context(), c.Project, httpapi.ClientIP(r), func() error {
		return h.Sessions.Revoke(r.Context(), c.Project, RevokeTarget{Token: c.SessionToken})
	})
	if err != nil {
		return nil, err
	}
	return &httpapi.Common{}, nil
}

type backendAuthRequest struct {
	SessionToken           string              `json:"session_token"`
	SessionJWT             string              `json:"session_jwt"`
	SessionDurationMinutes *int                `json:"session_duration_minutes"`
	AuthorizationCheck     *AuthorizationCheck `json:"authorization_check"`
	// An object: a body with it goes to encoding/json (StringField).
	ClaimsField

	verified *verifiedJWTs
	known    knownJWT
}

// Interned hands out the remembered copy of a session JWT this process
// has verified (httpapi.Interner): a backend presents the same JWT of
// nearly two kilobytes on every request, and copying it out of the body was the
// check's largest allocation. What the cache held is kept with the request
// (known), so the check does not look the token up a second time.
func (r *backendAuthRequest) Interned(field *string, value []byte) (string, bool) {
	if field != &r.SessionJWT || r.verified == nil {
		return "", false
	}
	if r.known = r.verified.intern(value); r.known.entry == nil {
		return "", false
	}
	return r.known.entry.token, true
}

// StringField lets httpapi.Decode read the usual body, a token or a JWT
// alone, without encoding/json (httpapi.StringFields).
func (r *backendAuthRequest) StringField(key string) *string {
	switch key {
	case "session_token":
		return &r.SessionToken
	case "session_jwt":
		return &r.SessionJWT
	}
	return nil
}

// decodeBackendAuth reads a backend check's body, interning a JWT this
// process has verified (see Interned).
func (h Handlers) decodeBackendAuth(r *http.Request) (backendAuthRequest, error) {
	req := backendAuthRequest{verified: h.Sessions.verified}
	err := httpapi.Decode(r, &req)
	return req, err
}

// credential is what the request presents, with what the verified cache
// held for its JWT as it was read.
func (r *backendAuthRequest) credential() Credential {
	return Credential{Token: r.SessionToken, JWT: r.SessionJWT, known: r.known}
}

// BackendAuthenticate handles POST /v1/b2b/sessions/authenticate.
func (h Handlers) BackendAuthenticate(r *http.Request) (any, error) {
	req, err := h.decodeBackendAuth(r)
	if err != nil {
		return nil, err
	}
	claims, err := req.Claims(r)
	if err != nil {
		return nil, err
	}
	p := project.CallerFrom(r.Context()).Project
	ch, verdict := h.authorizing(p, change{duration: req.SessionDurationMinutes, claims: claims}, req.AuthorizationCheck)
	out, err := h.Sessions.check(r.Context(), p, httpapi.ClientIP(r), req.credential(), ch)
	if err != nil {
		return nil, err
	}
	if verdict == nil {
		return h.Sessions.encoded(out, httpapi.Backend), nil
	}
	return &backendVerdictResponse{backendSessionResponse: out.backend(), Verdict: verdict}, nil
}

// decodeNoFields reads the body of an SDK route that takes no fields
// (the SDK posts none, or {}): a body that is not a JSON object is refused
// as on every other route, and as the backend twin refuses it, before the
// route acts, so a client whose body went wrong does not end a session
// by it.
func decodeNoFields(r *http.Request) error {
	var none struct{}
	return httpapi.Decode(r, &none)
}

type backendRevokeRequest struct {
	MemberSessionID string `json:"member_session_id"`
	SessionToken    string `json:"session_token"`
	SessionJWT      string `json:"session_jwt"`
	MemberID        string `json:"member_id"`
}

// BackendRevoke handles POST /v1/b2b/sessions/revoke (authorized by the
// member session header's roles when one is sent: authorizeRevoke).
func (h Handlers) BackendRevoke(r *http.Request) (any, error) {
	var req backendRevokeRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	p := project.CallerFrom(r.Context()).Project
	t := RevokeTarget{SessionID: req.MemberSessionID, Token: req.SessionToken, JWT: req.SessionJWT, MemberID: req.MemberID}
	if err := t.single(); err != nil {
		return nil, err // before the acting member's session is checked
	}
	if err := h.authorizeRevoke(r, p, t); err != nil {
		return nil, err
	}
	if err := h.Sessions.Revoke(r.Context(), p, t); err != nil {
		return nil, err
	}
	// The answer names no one: the audit log takes whose sessions ended
	// from the revoked rows (revokeOwner reads revoked sessions too).
	if memberID, orgID, err := h.Sessions.revokeOwner(r.Context(), p, t); err == nil {
		httpapi.NoteSubject(r.Context(), httpapi.Subject{OrganizationID: orgID, MemberID: memberID})
	}
	return &httpapi.Common{}, nil
}

// JWKSResponse is the key set with the API family's common fields.
type JWKSResponse struct {
	httpapi.Common
	KeySet
}

// JWKS handles GET /v1/b2b/sessions/jwks/{project_id}. Public keys are
// public, so the route needs no credentials (verifiers fetch it directly).
func (h Handlers) JWKS(r *http.Request) (any, error) {
	set, err := h.Sessions.KeySet(r.Context(), r.PathValue("project_id"))
	if err != nil {
		if project.IsNotFound(err) {
			return nil, apierr.Wrap(apierr.ProjectNotFound, err)
		}
		return nil, err
	}
	return &JWKSResponse{KeySet: set}, nil
}
