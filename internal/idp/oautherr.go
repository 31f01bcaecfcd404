package idp

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/latchkey/latchkey/internal/httpapi"
)

// oauthError is a protocol error of the token, introspection, revocation
// and userinfo endpoints. Their shape and codes are fixed by RFC 6749 5.2
// (and RFC 6750 3.1), so relying parties can read them; they are not
// catalogue errors, whose shape is the API family's.
type oauthError struct {
	status int
	code   string
	desc   string
}

func (e *oauthError) Error() string { return e.code + ": " + e.desc }

func invalidRequest(desc string) *oauthError { return &oauthError{400, "invalid_request", desc} }
func invalidGrant(desc string) *oauthError   { return &oauthError{400, "invalid_grant", desc} }
func invalidScope(desc string) *oauthError   { return &oauthError{400, "invalid_scope", desc} }
func unauthorizedClient(desc string) *oauthError {
	return &oauthError{400, "unauthorized_client", desc}
}
func invalidClient() *oauthError {
	return &oauthError{401, "invalid_client", "Client authentication failed."}
}
func unsupportedGrant() *oauthError {
	return &oauthError{400, "unsupported_grant_type", "grant_type must be authorization_code, refresh_token or client_credentials."}
}

// oauthErrorBody is a protocol error on the wire: the RFC's members, plus
// the three the vendor's backend SDK reads from every error body it gets
// (its OAuth2ErrorJSON: status_code, request_id, error_uri) and copies onto
// the error it throws; without them a caller's err.status_code and
// err.request_id were undefined. RFC 6749 5.2 lets a response carry
// members it does not define, so RFC clients read it as before.
type oauthErrorBody struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
	URI         string `json:"error_uri"`
	StatusCode  int    `json:"status_code"`
	RequestID   string `json:"request_id"`
}

// writeOAuth answers a protocol endpoint: JSON, never cached (RFC 6749
// 5.1), errors in the RFC's shape. Catalogue errors (rate limits, server
// errors) keep their status and take the RFC's shape with the nearest
// code.
func writeOAuth(w http.ResponseWriter, r *http.Request, status int, body any, err error) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	if err != nil {
		// errors.As: a limiter joins its own settling to the check's
		// error (ratelimit.GuardUnguessable), which must keep its shape.
		var oe *oauthError
		if !errors.As(err, &oe) {
			ae := httpapi.PublicError(err)
			if ae.Status < 500 && ae.Status != http.StatusTooManyRequests {
				oe = &oauthError{ae.Status, "invalid_request", ae.Message}
			} else {
				oe = &oauthError{ae.Status, "server_error", ae.Message}
				if ae.Status == http.StatusTooManyRequests {
					oe.code = "slow_down"
				}
			}
		}
		// A bearer endpoint has set its own challenge (RFC 6750 3).
		if oe.status == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" {
			oe = clientChallenge(w, r, oe)
		}
		status, body = oe.status, oauthErrorBody{Error: oe.code, Description: oe.desc,
			URI: httpapi.ErrorURLBase + oe.code, StatusCode: oe.status, RequestID: httpapi.RequestID(r.Context())}
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// clientChallenge answers a failed client authentication (a 401 of the
// token, introspection or revocation endpoint). RFC 6749 5.2 requires the
// 401 and a challenge of the client's scheme only when the client
// authenticated through the Authorization header; otherwise the answer is
// 400 invalid_client, as the vendor's token endpoint answers a wrong
// client_secret in the body. A Basic challenge on a request that carried
// no Authorization header would be a phishing aid: a cross-site
// auto-submitted form to the token endpoint made the browser show its own
// username and password dialog naming this server's domain, and keep what
// the user typed for that path. A request that carried the header chose
// to authenticate (a browser form cannot set it, and a cross-origin fetch
// that does is never prompted for), so it keeps the RFC's challenge.
func clientChallenge(w http.ResponseWriter, r *http.Request, oe *oauthError) *oauthError {
	if r.Header.Get("Authorization") != "" {
		w.Header().Set("WWW-Authenticate", `Basic realm="latchkey"`)
		return oe
	}
	return &oauthError{http.StatusBadRequest, oe.code, oe.desc}
}
