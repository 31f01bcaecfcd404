package scim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// SCIM schema URNs (RFC 7643, 7644).
const (
	schemaUser       = "urn:ietf:params:scim:schemas:core:2.0:User"
	schemaGroup      = "urn:ietf:params:scim:schemas:core:2.0:Group"
	schemaEnterprise = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
	schemaList       = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
	schemaError      = "urn:ietf:params:scim:api:messages:2.0:Error"
	schemaPatch      = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
	schemaSPConfig   = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"
	schemaResType    = "urn:ietf:params:scim:schemas:core:2.0:ResourceType"
	schemaSchema     = "urn:ietf:params:scim:schemas:core:2.0:Schema"
	contentType      = "application/scim+json"
)

// BearerFailuresPerClient bounds wrong bearer tokens per connection and
// client address. Tokens are 256-bit random, so a right one always passes
// (GuardUnguessable): only a scanner's failures are slowed.
var BearerFailuresPerClient = ratelimit.Rule{Name: "scim_bearer_fail", Limit: 30, Window: 10 * time.Minute}

// scimError is an answer in SCIM's error shape (RFC 7644 3.12).
type scimError struct {
	status   int
	scimType string // uniqueness, invalidFilter, invalidValue, invalidSyntax, noTarget, mutability...
	detail   string
}

func (e *scimError) Error() string {
	return "scim: " + strconv.Itoa(e.status) + " " + e.scimType + ": " + e.detail
}

func errInvalidValue(detail string) error {
	return &scimError{http.StatusBadRequest, "invalidValue", detail}
}
func errInvalidSyntax(detail string) error {
	return &scimError{http.StatusBadRequest, "invalidSyntax", detail}
}
func errInvalidFilter(detail string) error {
	return &scimError{http.StatusBadRequest, "invalidFilter", detail}
}
func errUniqueness(detail string) error { return &scimError{http.StatusConflict, "uniqueness", detail} }
func errNotFound(what, id string) error {
	return &scimError{http.StatusNotFound, "", what + " " + strconv.Quote(id) + " not found."}
}

// errUnauthorized is every refused bearer token: wrong, expired, another
// connection's, or naming no connection at all (the answers are alike so
// they reveal nothing).
var errUnauthorized = &scimError{http.StatusUnauthorized, "", "The bearer token is not valid for this SCIM connection."}

type errorBody struct {
	Schemas  []string `json:"schemas"`
	Status   string   `json:"status"`
	ScimType string   `json:"scimType,omitempty"`
	Detail   string   `json:"detail,omitempty"`
}

// scimHandler serves one SCIM request for an authenticated connection: the
// answer's status and body (nil for none).
type scimHandler func(r *http.Request, c *conn) (int, any, error)

// serve authenticates the request's bearer token against the connection
// in the path, under the per-client failure limit, and answers in SCIM's
// JSON.
func (s *Service) serve(h scimHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var c *conn
		ctx := r.Context()
		id := r.PathValue("connection_id")
		check := func() error {
			token, ok := bearer(r)
			if !ok || !httpapi.Clean(id) {
				return errUnauthorized
			}
			var err error
			c, err = s.byID(ctx, s.d.DB.Read(), id)
			if errors.Is(err, store.ErrNotFound) {
				return errUnauthorized
			}
			if err != nil {
				return err
			}
			if !c.accepts(token, s.d.Clock.Now()) {
				return errUnauthorized
			}
			return nil
		}
		err := s.d.Limiter.GuardUnguessable(ctx, check, func(err error) bool { return err == errUnauthorized },
			ratelimit.For(BearerFailuresPerClient, id+"|"+httpapi.ClientIP(r)))
		if err != nil {
			writeError(w, r, err)
			return
		}
		httpapi.SetProject(ctx, c.ProjectID)
		status, body, err := h(r, c)
		if err != nil {
			writeError(w, r, s.connectionGone(ctx, c, err))
			return
		}
		write(w, status, body)
	})
}

// connectionGone answers err, a failed request of connection c, as the
// refused token it now is when c was deleted while the request ran (with
// its organization, or alone): a write under it then fails its foreign key
// (store.ErrParentGone), or finds the organization gone. The next request
// with the token is refused (serve), and so is this one, rather than
// answered 500 or organization_not_found. Any other failure is err.
func (s *Service) connectionGone(ctx context.Context, c *conn, err error) error {
	if !errors.Is(err, store.ErrParentGone) && !apierr.Is(err, apierr.OrganizationNotFound) {
		return err
	}
	if _, lookErr := s.byID(ctx, s.d.DB.Read(), c.ID); errors.Is(lookErr, store.ErrNotFound) {
		return errUnauthorized
	}
	return err
}

// bearer reads Authorization: Bearer <token>.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

func write(w http.ResponseWriter, status int, body any) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	// The CSP WithSecurityHeaders gives a JSON answer, set here too, as
	// httpapi's writeBody does: a panic's 500 is written through this
	// writer (writeAPIError) by WithRecover, which runs outside
	// WithSecurityHeaders (app.Handler), past the writer that adds it.
	if h.Get("Content-Security-Policy") == "" {
		h.Set("Content-Security-Policy", httpapi.APICSP)
	}
	if body == nil {
		w.WriteHeader(status)
		return
	}
	buf, err := json.Marshal(body)
	if err != nil {
		status = http.StatusInternalServerError
		buf, _ = json.Marshal(errorBody{Schemas: []string{schemaError}, Status: "500", Detail: "The answer could not be encoded."})
	}
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(buf)))
	w.WriteHeader(status)
	_, _ = w.Write(buf)
}

// writeError answers err in SCIM's error shape: SCIM errors as they are,
// catalogue errors with their status (conflicts as uniqueness, invalid
// input as invalidValue), anything else as a logged 500.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	var se *scimError
	if !errors.As(err, &se) {
		e := httpapi.PublicError(err)
		se = &scimError{status: e.Status, detail: e.Message}
		switch {
		case e.Type == apierr.DuplicateMemberEmail || e.Type == apierr.DuplicateMemberExternalID:
			se.status, se.scimType = http.StatusConflict, "uniqueness"
		case e.Status == http.StatusBadRequest:
			se.scimType = "invalidValue"
		}
		if e.Status >= 500 {
			httpapi.Logger(r.Context()).Error("scim request failed", "request_id", httpapi.RequestID(r.Context()),
				"error", err.Error())
		}
	}
	if se.status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="SCIM"`)
	}
	write(w, se.status, errorBody{Schemas: []string{schemaError}, Status: strconv.Itoa(se.status), ScimType: se.scimType,
		Detail: se.detail})
}

// writeAPIError is writeError for the errors the edge raises on the
// service's paths (httpapi.ErrorWriter).
func writeAPIError(w http.ResponseWriter, r *http.Request, e *apierr.Error) { writeError(w, r, e) }

const meUnsupported = "The /Me alias is not supported: the bearer token is the SCIM connection's, not a user's."

// notImplemented answers a part of SCIM this service does not offer.
func notImplemented(detail string) scimHandler {
	return func(*http.Request, *conn) (int, any, error) {
		return 0, nil, &scimError{http.StatusNotImplemented, "", detail}
	}
}

// readJSON decodes a SCIM request body into dst. Text the database would
// refuse (invalid UTF-8, NUL) is invalid syntax, like malformed JSON.
func readJSON(r *http.Request, dst any) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &scimError{http.StatusRequestEntityTooLarge, "", "The request body is too large."}
		}
		return errInvalidSyntax("The request body could not be read.")
	}
	// The API's own check: invalid UTF-8, an escaped NUL, or an unpaired
	// surrogate escape that encoding/json would store as U+FFFD.
	if err := httpapi.CheckJSONText(body); err != nil {
		return errInvalidSyntax(apierr.From(err).Message)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typeErr) && typeErr.Field != "":
			_, msg := httpapi.TypeMismatch(body, typeErr)
			return errInvalidSyntax("The request body is not a valid SCIM JSON object: " + msg)
		case errors.As(err, &typeErr):
			return errInvalidSyntax("The request body must be a JSON object.")
		}
		return errInvalidSyntax("The request body is not a valid SCIM JSON object: " + err.Error())
	}
	// One value and nothing after it: a body with more is not the one
	// the client meant to send (a truncated or concatenated write), and
	// acting on its first part could deactivate a user on a malformed
	// request.
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errInvalidSyntax("The request body must be a single JSON object, with nothing after it.")
	}
	return nil
}

// meta is a resource's meta attribute.
type meta struct {
	ResourceType string `json:"resourceType"`
	Created      string `json:"created"`
	LastModified string `json:"lastModified"`
	Location     string `json:"location"`
}

func newMeta(kind string, created, updated int64, location string) meta {
	return meta{ResourceType: kind, Created: rfc3339(created), LastModified: rfc3339(updated), Location: location}
}

// location is the URL of a resource of c.
func (s *Service) location(c *conn, kind, id string) string {
	return s.d.BaseURL() + "/v1/b2b/scim/" + c.ID + "/" + kind + "/" + id
}

// listResponse is a ListResponse message.
type listResponse struct {
	Schemas      []string `json:"schemas"`
	TotalResults int      `json:"totalResults"`
	StartIndex   int      `json:"startIndex"`
	ItemsPerPage int      `json:"itemsPerPage"`
	Resources    []any    `json:"Resources"`
}

// maxPage is the largest count a list answers with (filter.maxResults).
const maxPage = 200

// paging reads startIndex (1-based) and count (RFC 7644 3.4.2.4); out of
// range values are clamped as the RFC asks.
func paging(r *http.Request) (start, count int, err error) {
	start, count = 1, maxPage
	qv := r.URL.Query()
	if v := qv.Get("startIndex"); v != "" {
		if start, err = strconv.Atoi(v); err != nil {
			return 0, 0, errInvalidValue("startIndex must be a number.")
		}
		start = max(start, 1)
	}
	if v := qv.Get("count"); v != "" {
		if count, err = strconv.Atoi(v); err != nil {
			return 0, 0, errInvalidValue("count must be a number.")
		}
		count = min(max(count, 0), maxPage)
	}
	return start, count, nil
}

func (s *Service) serviceProviderConfig(_ *http.Request, _ *conn) (int, any, error) {
	on := func(v bool) map[string]any { return map[string]any{"supported": v} }
	return http.StatusOK, map[string]any{
		"schemas":          []string{schemaSPConfig},
		"documentationUri": "https://datatracker.ietf.org/doc/html/rfc7644",
		"patch":            on(true),
		"bulk":             map[string]any{"supported": false, "maxOperations": 0, "maxPayloadSize": 0},
		"filter":           map[string]any{"supported": true, "maxResults": maxPage},
		"changePassword":   on(false),
		"sort":             on(true),
		"etag":             on(false),
		"authenticationSchemes": []map[string]any{{"type": "oauthbearertoken", "name": "OAuth Bearer Token",
			"description": "The SCIM connection's bearer token, sent as Authorization: Bearer.", "primary": true}},
		"meta": map[string]any{"resourceType": "ServiceProviderConfig"},
	}, nil
}

func resourceType(id, endpoint, schema string, ext ...map[string]any) map[string]any {
	out := map[string]any{"schemas": []string{schemaResType}, "id": id, "name": id, "endpoint": endpoint,
		"schema": schema, "meta": map[string]any{"resourceType": "ResourceType"}}
	if len(ext) > 0 {
		out["schemaExtensions"] = ext
	}
	return out
}

func (s *Service) resourceTypes(_ *http.Request, _ *conn) (int, any, error) {
	types := []any{
		resourceType("User", "/Users", schemaUser, map[string]any{"schema": schemaEnterprise, "required": false}),
		resourceType("Group", "/Groups", schemaGroup),
	}
	return http.StatusOK, listResponse{Schemas: []string{schemaList}, TotalResults: len(types), StartIndex: 1,
		ItemsPerPage: len(types), Resources: types}, nil
}
