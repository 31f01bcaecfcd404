// Package httpapi is HTTP plumbing that knows no domain: request ids,
// logging, panics, body limits, CORS, JSON decoding, and the two response
// envelopes (the SDK face wraps payloads in {"data": ...}; the backend face
// is flat). Domain handlers return (payload, error) and never write
// responses themselves.
package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/latchkey/latchkey/internal/apierr"
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

// WriteJSON writes a success payload in the face's envelope.
func WriteJSON(w http.ResponseWriter, r *http.Request, face Face, status int, payload any) {
	if sw, ok := payload.(SDKWirer); ok && face == SDK {
		payload = sw.SDKWire()
	}
	if c, ok := payload.(commoner); ok {
		c.SetCommon(RequestID(r.Context()), status)
	}
	var body any = payload
	if face == SDK {
		body = envelope{Data: payload}
	}
	writeRaw(w, status, body)
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

// WriteError writes err in the catalogue's shape (top level on both faces,
// as the SDKs expect) and logs the hidden cause with the request id.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	e := apierr.From(err)
	rid := RequestID(r.Context())
	level := slog.LevelInfo
	if e.Status >= 500 {
		level = slog.LevelError
	}
	attrs := []any{"request_id", rid, "error_type", string(e.Type), "status", e.Status}
	if c := e.Cause(); c != nil {
		attrs = append(attrs, "cause", c.Error())
	}
	logger(r.Context()).Log(r.Context(), level, "request failed", attrs...)
	writeRaw(w, e.Status, errorBody{
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

func writeRaw(w http.ResponseWriter, status int, body any) {
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
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Cache-Control"] = noStore
	h["Content-Length"] = []string{strconv.Itoa(buf.Len())}
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
