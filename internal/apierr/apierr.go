// Package apierr is the error catalogue: the only way a public error is
// built. Each error carries a catalogued type, its HTTP status and message,
// optional details, and a hidden cause that is logged at the edge but never
// sent to clients.
package apierr

import (
	"errors"
	"fmt"
)

// Error is a public API error. The JSON shape matches the SDKs' error
// objects: status_code, error_type, error_message, error_url, request_id,
// error_details.
type Error struct {
	Type    Type
	Status  int
	Message string
	Details map[string]any
	cause   error
}

// New returns the catalogued error for t. An uncatalogued type is a
// programming error; it degrades to internal_server_error so a client never
// sees an invented type.
func New(t Type) *Error {
	e, ok := catalogue[t]
	if !ok {
		return &Error{Type: InternalServerError, Status: 500, Message: catalogue[InternalServerError].message,
			cause: fmt.Errorf("apierr: uncatalogued type %q", t)}
	}
	return &Error{Type: t, Status: e.status, Message: e.message}
}

// Wrap returns the catalogued error for t with a hidden cause.
func Wrap(t Type, cause error) *Error {
	e := New(t)
	if e.cause == nil {
		e.cause = cause
	}
	return e
}

// Invalid returns an invalid_request error naming the offending field.
func Invalid(field, message string) *Error {
	e := New(InvalidRequest)
	e.Message = message
	e.Details = map[string]any{"field": field}
	return e
}

// WithMessage returns a copy with a more specific message.
func (e *Error) WithMessage(msg string) *Error {
	c := *e
	c.Message = msg
	return &c
}

// WithDetails returns a copy carrying error_details.
func (e *Error) WithDetails(d map[string]any) *Error {
	c := *e
	c.Details = d
	return &c
}

func (e *Error) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Type, e.Message, e.cause)
	}
	return fmt.Sprintf("%s: %s", e.Type, e.Message)
}

// Unwrap exposes the hidden cause to errors.Is/As and to the logger.
func (e *Error) Unwrap() error { return e.cause }

// Cause returns the hidden cause, if any.
func (e *Error) Cause() error { return e.cause }

// From finds the public error in err's chain, or wraps err as an internal
// server error (whose cause is logged but never shown).
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Wrap(InternalServerError, err)
}

// Is reports whether err carries the public error type t.
func Is(err error, t Type) bool {
	var e *Error
	return errors.As(err, &e) && e.Type == t
}
