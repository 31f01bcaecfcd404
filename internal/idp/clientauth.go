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

// authenticateClient resolves the calling connected app of projectID. A
// confidential client must present its secret (the current one, or the
// next during a rotation); a public client must present none.
func (p *Provider) authenticateClient(r *http.Request, projectID string) (*connectedapps.App, error) {
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
	err = p.guardClient(r, projectID, true, check)
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
func (p *Provider) guardClient(r *http.Request, projectID string, generated bool, check func() error) error {
	isFailure := func(err error) bool { var oe *oauthError; return errors.As(err, &oe) && oe.code == "invalid_client" }
	rule := ratelimit.For(ClientSecretFailuresPerIP, projectID+"|"+httpapi.ClientIP(r))
	if generated {
		return p.limiter.GuardUnguessable(r.Context(), check, isFailure, rule)
	}
	return p.limiter.Guard(r.Context(), check, isFailure, rule)
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
