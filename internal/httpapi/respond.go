// Package httpapi is HTTP plumbing that knows no domain: request ids,
// logging, panics, body limits, CORS, JSON decoding, and the two response
// envelopes (the SDK face wraps payloads in {"data": ...}; the backend face
// is flat). Domain handlers return (payload, error) and never write
// responses themselves.
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/store"
)

// Common carries request_id and status_code. Every response payload embeds
// it so both faces can stamp them without re-marshalling.
type Common struct {
	RequestID  string `json:"request_id"`
	StatusCode int    `json:"status_code"`
}

// SetCommon fills the common fields.
func (c *Common) SetCommon(requestID string, status int) {
	c.RequestID, c.StatusCode = requestID, status
}

type commoner interface {
	SetCommon(requestID string, status int)
}

// Face selects the response envelope.
type Face int

// The two API faces.
const (
	SDK     Face = iota // {"data": payload}
	Backend             // payload at top level
)

// HandlerFunc is a domain handler: it decodes its own input and returns a
// payload (a pointer to a struct embedding Common) or an error.
type HandlerFunc func(r *http.Request) (any, error)

// Handle adapts a HandlerFunc to http.Handler for the given face.
func Handle(face Face, h HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		payload, err := h(r)
		if err != nil {
			WriteError(w, r, err)
			return
		}
		WriteJSON(w, r, face, http.StatusOK, payload)
	})
}

type envelope struct {
	Data any `json:"data"`
}

// SDKWirer is a payload whose SDK-face answer is a separate wire type:
// browsers hold only the public token, so they get exactly the fields the
// browser SDK declares (internal/apptest/sdk_wire.json), while the backend
// face keeps the full shape. Packages define these in their wire.go.
type SDKWirer interface {
	SDKWire() any
}

// BackendWirer is a payload whose backend-face answer is a separate wire
// type: the shape the Node client declares for the call
// (internal/apptest/backend_wire.json), where the payload, shared with the
// SDK face or with other calls, holds fields that call's type lacks.
type BackendWirer interface {
	BackendWire() any
}

// onFace is the payload as face answers it: its SDK or backend wire type
// when it has one.
func onFace(face Face, payload any) any {
	switch face {
	case SDK:
		if sw, ok := payload.(SDKWirer); ok {
			return sw.SDKWire()
		}
	case Backend:
		if bw, ok := payload.(BackendWirer); ok {
			return bw.BackendWire()
		}
	}
	return payload
}

// Preencoded is a success answer encoded ahead of time by EncodeTail, for
// answers that are the same on every request (a session check of a session
// that has not changed): WriteJSON only adds the envelope, the common
// fields and Value, and the bytes are those encoding the payload would
// give.
type Preencoded struct {
	Face Face
	Tail []byte
	// Value, when set, is the string at offset At of Tail (between the
	// quotes EncodeTail left there): a secret such as a session token,
	// which the kept encoding must not hold.
	At    int
	Value string
}

// commonPrefix is how every payload's JSON starts when its Common fields
// are zero: Common is embedded first, so its fields come first.
const commonPrefix = `{"request_id":"","status_code":0`

// EncodeTail encodes payload as WriteJSON answers it on face, without the
// envelope and the common fields, for a Preencoded. When mark is set, the
// payload holds it as one string value (and nowhere else): it is cut out,
// and at is where a Preencoded's Value goes. The payload's common fields
// are cleared. It fails for a payload
// without Common first, and for a mark not found exactly once.
func EncodeTail(face Face, payload any, mark string) (tail []byte, at int, err error) {
	payload = onFace(face, payload)
	c, ok := payload.(commoner)
	if !ok {
		return nil, 0, fmt.Errorf("httpapi: %T has no common fields", payload)
	}
	c.SetCommon("", 0)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(payload); err != nil {
		return nil, 0, err
	}
	tail, ok = bytes.CutPrefix(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte(commonPrefix))
	if !ok {
		return nil, 0, fmt.Errorf("httpapi: %T does not start with its common fields", payload)
	}
	if mark == "" {
		return tail, 0, nil
	}
	quoted := appendJSONString(nil, mark)
	if bytes.Count(tail, quoted) != 1 {
		return nil, 0, fmt.Errorf("httpapi: the mark is not in %T exactly once", payload)
	}
	i := bytes.Index(tail, quoted)
	return append(append(tail[:i:i], '"', '"'), tail[i+len(quoted):]...), i + 1, nil
}

// appendJSONString appends s as a JSON string, escaped as WriteJSON's
// encoder does.
func appendJSONString(b []byte, s string) []byte {
	if plainJSON(s) {
		return append(append(append(b, '"'), s...), '"')
	}
	var q bytes.Buffer
	enc := json.NewEncoder(&q)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return append(b, bytes.TrimSuffix(q.Bytes(), []byte("\n"))...)
}

// plainJSON reports whether s needs no escaping inside a JSON string.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// writePreencoded writes p as writeRaw would have written its payload.
func writePreencoded(w http.ResponseWriter, r *http.Request, status int, p Preencoded) {
	buf := bufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 64<<10 {
			buf.Reset()
			bufs.Put(buf)
		}
	}()
	b := buf.AvailableBuffer()
	if p.Face == SDK {
		b = append(b, `{"data":`...)
	}
	b = appendJSONString(append(b, `{"request_id":`...), RequestID(r.Context()))
	b = strconv.AppendInt(append(b, `,"status_code":`...), int64(status), 10)
	if p.Value != "" {
		v := appendJSONString(nil, p.Value)
		b = append(append(append(b, p.Tail[:p.At-1]...), v...), p.Tail[p.At+1:]...)
	} else {
		b = append(b, p.Tail...)
	}
	if p.Face == SDK {
		b = append(b, '}')
	}
	b = append(b, '\n')
	buf.Write(b)
	writeBody(w, r, status, buf.Bytes())
}

// WriteJSON writes a success payload in the face's envelope.
func WriteJSON(w http.ResponseWriter, r *http.Request, face Face, status int, payload any) {
	noteSubject(r, payload)
	if p, ok := payload.(Preencoded); ok && p.Face == face {
		writePreencoded(w, r, status, p)
		return
	}
	payload = onFace(face, payload)
	if c, ok := payload.(commoner); ok {
		c.SetCommon(RequestID(r.Context()), status)
	}
	var body any = payload
	if face == SDK {
		body = envelope{Data: payload}
	}
	writeRaw(w, r, status, body)
}

type errorBody struct {
	StatusCode   int            `json:"status_code"`
	RequestID    string         `json:"request_id"`
	ErrorType    string         `json:"error_type"`
	ErrorMessage string         `json:"error_message"`
	ErrorURL     string         `json:"error_url"`
	ErrorDetails map[string]any `json:"error_details,omitempty"`
}

// ErrorURLBase prefixes error_url; the docs page anchors each type.
const ErrorURLBase = "https://latchkey.dev/docs/errors#"

// StatusClientClosedRequest is the status recorded, logged and counted for
// a request whose client left before its answer (nginx's 499). No client
// ever reads it.
const StatusClientClosedRequest = 499

// PublicError is apierr.From for an answer: the public error in err's chain,
// else, for a write whose parent row a concurrent request deleted
// (store.ErrParentGone) that no domain translated, resource_not_found,
// else internal_server_error. The domains translate the parents their
// requests name (organization_not_found for a member created in an
// organization deleted meanwhile); this is for the rest. A 404 rather
// than organization_not_found, since the edge cannot tell which parent
// went (SQLite does not name the constraint), and rather than a conflict,
// since a retry cannot succeed: what the request acts on is gone, as a
// request sent a moment later would be told.
func PublicError(err error) *apierr.Error {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, store.ErrParentGone) {
		return apierr.Wrap(apierr.ResourceNotFound, err)
	}
	return apierr.From(err)
}

// WriteError writes err in the catalogue's shape (top level on both faces,
// as the SDKs expect) and logs the hidden cause with the request id.
//
// An error that is the request's own context ending, because its client
// hung up, is not the server's: answered as one, every user who closed a
// tab during a password hash logged an ERROR and counted as a 5xx on the
// operator's dashboards. It is logged at info and counted as 499 instead,
// with no body, since nobody is there to read one.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	rid := RequestID(r.Context())
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		logger(r.Context()).Log(r.Context(), slog.LevelInfo, "request abandoned by the client",
			"request_id", rid, "status", StatusClientClosedRequest, "cause", err.Error())
		w.WriteHeader(StatusClientClosedRequest)
		return
	}
	e := PublicError(err)
	level := slog.LevelInfo
	if e.Status >= 500 {
		level = slog.LevelError
	}
	attrs := []any{"request_id", rid, "error_type", string(e.Type), "status", e.Status}
	if c := e.Cause(); c != nil {
		attrs = append(attrs, "cause", c.Error())
	}
	logger(r.Context()).Log(r.Context(), level, "request failed", attrs...)
	writeRaw(w, r, e.Status, errorBody{
		StatusCode:   e.Status,
		RequestID:    rid,
		ErrorType:    string(e.Type),
		ErrorMessage: e.Message,
		ErrorURL:     ErrorURLBase + string(e.Type),
		ErrorDetails: e.Details,
	})
}

// Header values every answer carries, shared rather than allocated per
// response. Nothing edits a header value in place (Set and Add replace or
// append), so sharing the backing arrays is safe.
var (
	jsonContentType = []string{"application/json; charset=utf-8"}
	noStore         = []string{"no-store"}
)

// bufs recycles response buffers: answers are encoded whole, then sent
// with Content-Length in one write (no chunked encoding, one syscall).
var bufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func writeRaw(w http.ResponseWriter, r *http.Request, status int, body any) {
	buf := bufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 64<<10 {
			buf.Reset()
			bufs.Put(buf)
		}
	}()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		buf.Reset()
		e := apierr.New(apierr.InternalServerError)
		status = e.Status
		_ = enc.Encode(errorBody{StatusCode: e.Status, ErrorType: string(e.Type), ErrorMessage: e.Message,
			ErrorURL: ErrorURLBase + string(e.Type)})
	}
	writeBody(w, r, status, buf.Bytes())
}

// writeBody sends a JSON answer with its length, in one write: a long one
// is flushed while its connection gathers the writes (gather.go).
func writeBody(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Cache-Control"] = noStore
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	h["Date"] = dateHeader() // formatted once a second, not per answer by net/http (date.go)
	// The CSP WithSecurityHeaders gives a JSON answer, set here too: a
	// panic's 500 is written by WithRecover, which runs outside
	// WithSecurityHeaders (app.Handler), past the writer that adds it.
	if len(h["Content-Security-Policy"]) == 0 {
		h["Content-Security-Policy"] = apiCSP
	}
	gc := gatherFor(r)
	if gc != nil && len(body) >= gatherMin {
		gc.hold()
		defer gc.release()
	} else {
		gc = nil
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
	if gc != nil {
		_ = http.NewResponseController(w).Flush() // through the held connection, before release
	}
}
