package idp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// ClientSecretFailuresPerIP counts failed client authentications per
// address at one project's endpoints (keyed projectID|address, as every
// per-address limit of a project is): failures at another project's
// endpoints from a shared address (a NAT, an IPv6 /64) spend nothing of
// this project's allowance. There is no per-client rule: a per-client
// lock would only let anyone who knows a client_id (it is in every
// authorization URL) lock the real client out of the token endpoint.
// Generated secrets (every connected app's, and an M2M client's unless
// its current secret is one the customer chose: m2m.Client.SecretChosen)
// are 256-bit random (clientsecret.New), so no number of guesses finds
// one: past the limit an address's failures are answered with the
// refusal, which slows a scanner down, and a correct secret always passes
// (ratelimit.GuardUnguessable). A chosen M2M secret may be guessable, so
// there the allowance is checked before the secret (guardClient).
//
// A right secret gives its count back (Release): the rule counts failures,
// so machines behind one address (a NAT, a fleet) that ask for M2M tokens
// all day with their right secrets never spend it.
var ClientSecretFailuresPerIP = ratelimit.Rule{Name: "idp_client_secret_ip", Limit: 30, Window: 10 * time.Minute,
	OnSuccess: ratelimit.Release}

// clientCredentials reads client_secret_basic (RFC 6749 2.3.1: the parts
// are form-encoded) or client_secret_post; a public client sends only its
// client_id. Sending both methods is an error (RFC 6749 2.3).
func clientCredentials(r *http.Request) (id, secret string, err error) {
	if u, p, ok := r.BasicAuth(); ok {
		if r.PostForm.Get("client_secret") != "" {
			return "", "", invalidRequest("Use one client authentication method.")
		}
		if id, err = url.QueryUnescape(u); err == nil {
			secret, err = url.QueryUnescape(p)
		}
		if err != nil || !httpapi.Clean(id) || !httpapi.Clean(secret) {
			return "", "", invalidClient()
		}
		if fid := r.PostForm.Get("client_id"); fid != "" && fid != id {
			return "", "", invalidRequest("client_id does not match the authenticated client.")
		}
		return id, secret, nil
	}
	return r.PostForm.Get("client_id"), r.PostForm.Get("client_secret"), nil
}

// authenticateClient resolves the calling connected app of projectID at
// endpoint ("token", "introspect", "revoke": for the audit log). A
// confidential client must present its secret (the current one, or the
// next during a rotation); a public client must present none.
func (p *Provider) authenticateClient(r *http.Request, projectID, endpoint string) (*connectedapps.App, error) {
	id, secret, err := clientCredentials(r)
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, invalidClient()
	}
	var app *connectedapps.App
	check := func() error {
		a, err := p.apps.Get(r.Context(), projectID, id)
		if errors.Is(err, store.ErrNotFound) {
			return invalidClient()
		}
		if err != nil {
			return err
		}
		if a.Public() != (secret == "") || (!a.Public() && !a.Secret.Matches(secret)) {
			return invalidClient()
		}
		app = a
		return nil
	}
	err = p.guardClient(r, projectID, clientAttempt{method: "client_secret", clientID: id, endpoint: endpoint}, true, check)
	if err != nil {
		return nil, err
	}
	return app, nil
}

// guardClient runs a client secret check under the per-address failure
// limit (never a per-client one: client ids are public, and a stranger's
// failures must not lock the real client out). A generated secret (every
// connected app's, an M2M client's unless it chose its own) has 256 bits,
// so the check runs first and a right secret always passes
// (GuardUnguessable): thirty wrong guesses from an address at any client
// must not lock every other client out there. A chosen M2M secret may be
// guessable, so there the address's allowance is checked before the
// secret, and an address out of it gets no answer at all until the window
// passes.
//
// A failure (invalid_client) and a refusal past the allowance (slow_down)
// are recorded in the audit log (auditClient).
func (p *Provider) guardClient(r *http.Request, projectID string, a clientAttempt, generated bool, check func() error) error {
	isFailure := func(err error) bool { var oe *oauthError; return errors.As(err, &oe) && oe.code == "invalid_client" }
	rule := ratelimit.For(ClientSecretFailuresPerIP, projectID+"|"+httpapi.ClientIP(r))
	var err error
	if generated {
		err = p.limiter.GuardUnguessable(r.Context(), check, isFailure, rule)
	} else {
		err = p.limiter.Guard(r.Context(), check, isFailure, rule)
	}
	if isFailure(err) || apierr.Is(err, apierr.TooManyRequests) {
		p.auditClient(r, projectID, a, err)
	}
	return err
}

// clientAttempt is a client authentication as the audit log names it.
type clientAttempt struct {
	// method is the audit event's method: "client_credentials" (an M2M
	// client's grant) or "client_secret" (a connected app's
	// authentication, client_secret_basic, client_secret_post or none).
	method   string
	clientID string // as the caller sent it: there may be no such client
	endpoint string // "token", "introspect", "revoke"
}

// maxAuditedClientID bounds the client id an audit event keeps: a caller
// may send anything, and real ids are shorter (generated ones, and M2M ids
// chosen since they are capped at 128 characters; one chosen before may be
// longer, and its events keep its first 256 bytes).
const maxAuditedClientID = 256

// auditClient records a failed client authentication (invalid_client, a
// login failure) or one refused because the address is out of allowance
// (slow_down, a lockout), with the client id the caller sent and never
// the secret. The event is the answer's record, not part of it: a failed
// write is logged and the answer stands, as for the login routes
// (app.recordRoute).
func (p *Provider) auditClient(r *http.Request, projectID string, a clientAttempt, err error) {
	ctx := r.Context()
	typ, code := audit.Login, "invalid_client"
	if apierr.Is(err, apierr.TooManyRequests) {
		typ, code = audit.Lockout, "slow_down"
	}
	ip, ua := httpapi.Client(ctx)
	e := audit.Event{ProjectID: projectID, Type: typ, Outcome: audit.Failure, Method: a.method, Actor: "oauth_client",
		IP: ip, UserAgent: ua, RequestID: httpapi.RequestID(ctx),
		Details: map[string]any{"client_id": audit.Clip(a.clientID, maxAuditedClientID), "endpoint": a.endpoint, "error_type": code}}
	if rerr := p.audit.Record(ctx, e); rerr != nil {
		p.log.ErrorContext(ctx, "audit: record failed", "request_id", e.RequestID, "cause", rerr.Error())
	}
}

// parseTokenBody reads the token endpoint's parameters into r.PostForm,
// from the form (RFC 6749 3.2) or, as the vendor's API reference sends
// them, from a flat JSON object of string values. Every grant takes
// either: the reference shows JSON for authorization_code and refresh_token
// as for client_credentials, and each grant then reads one set of
// parameters however they came.
func parseTokenBody(r *http.Request) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" {
		return parseJSONForm(r)
	}
	return parseForm(r)
}

// parseJSONForm reads a JSON object whose values are all strings into
// r.PostForm. The body is bounded as a form's is (httpapi.WithBodyLimit).
// A value of another type (a list, a number, null, an object) or a key
// given twice is invalid_request, as a repeated form parameter is: the
// body is read token by token (json.Decoder.Token), not unmarshalled into
// a map, which would silently keep the last of two keys. NUL characters are
// refused as WithCleanInput refuses them in a form (it does not read JSON).
func parseJSONForm(r *http.Request) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return apierr.New(apierr.RequestTooLarge)
		}
		return invalidRequest("The request body could not be read.")
	}
	// The API's own check first: invalid UTF-8 or an unpaired surrogate
	// escape would reach the values as U+FFFD, not as sent.
	if err := httpapi.CheckJSONText(body); err != nil {
		return invalidRequest(apierr.From(err).Message)
	}
	notFlat := invalidRequest("The request body must be a JSON object whose values are strings.")
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return notFlat
	}
	v := url.Values{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return notFlat
		}
		key, _ := k.(string) // an object's keys are strings
		t, err := dec.Token()
		if err != nil {
			return notFlat
		}
		value, ok := t.(string)
		switch {
		case !ok:
			return invalidRequest("Parameter " + key + " must be a string.")
		case v.Has(key):
			return invalidRequest("Parameter " + key + " is repeated.") // RFC 6749 3.1, 3.2
		case !httpapi.Clean(key) || !httpapi.Clean(value):
			return invalidRequest("The request body contains a NUL character.")
		}
		v.Set(key, value)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return notFlat
	}
	if _, err := dec.Token(); err != io.EOF {
		return notFlat
	}
	r.PostForm = v
	return nil
}

// parseForm reads an application/x-www-form-urlencoded POST body.
func parseForm(r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return invalidRequest("The request body must be application/x-www-form-urlencoded.")
	}
	for k, v := range r.PostForm {
		if len(v) > 1 {
			return invalidRequest("Parameter " + k + " is repeated.") // RFC 6749 3.1, 3.2
		}
	}
	return nil
}
