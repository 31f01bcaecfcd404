package httpapi

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
)

// mismatchSettings is embedded, as organization settings and M2M client
// fields are in their request types: Go names it in UnmarshalTypeError's
// path, the client never sees it.
type mismatchSettings struct {
	Name        string            `json:"organization_name"`
	Assignments []mismatchRole    `json:"rbac_email_implicit_role_assignments"`
	Minutes     *int              `json:"session_duration_minutes"`
	Small       uint8             `json:"small"`
	Ratio       float64           `json:"ratio"`
	Labels      map[string]string `json:"labels"`
	Nested      *struct {
		mismatchInner
	} `json:"nested"`
}

type mismatchRole struct {
	RoleID string `json:"role_id"`
}

type mismatchInner struct {
	Limits []int `json:"limits"`
}

type mismatchTarget struct {
	mismatchSettings
	Scopes  []string `json:"scopes"`
	Wrapped wrapped  `json:"wrapped"`
	Pad     string   `json:"pad"`
}

// wrapped decodes itself with a nested Unmarshal, whose type error has an
// offset into other bytes than the body's.
type wrapped struct {
	V int `json:"v"`
}

func (w *wrapped) UnmarshalJSON(b []byte) error {
	type plain wrapped
	return json.Unmarshal(b, (*plain)(w))
}

// A value of the wrong type is named by its path in the body, in the
// client's keys with list indices (never an embedded struct's Go name),
// and an integer field says it wants a whole number, or that the number is
// out of its range.
func TestDecodeTypeMismatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ body, field, message string }{
		{`{"organization_name":5}`, "organization_name", "organization_name must be a string."},
		{`{"Organization_Name":true}`, "Organization_Name", "Organization_Name must be a string."},
		{`{"organization\u005fname":[1]}`, "organization_name", "organization_name must be a string."},
		{`{"scopes":"a"}`, "scopes", "scopes must be a list."},
		{`{"scopes":["a",7]}`, "scopes[1]", "scopes[1] must be a string."},
		{`{"rbac_email_implicit_role_assignments":["a"]}`, "rbac_email_implicit_role_assignments[0]",
			"rbac_email_implicit_role_assignments[0] must be a JSON object."},
		{`{"rbac_email_implicit_role_assignments":[{"role_id":"a"}, {"role_id":3}]}`, "rbac_email_implicit_role_assignments[1].role_id",
			"rbac_email_implicit_role_assignments[1].role_id must be a string."},
		{`{"labels":[]}`, "labels", "labels must be a JSON object."},
		{`{"labels":{"a":"b","c":{"d":1}}}`, "labels.c", "labels.c must be a string."},
		{` { "nested" : { "limits" : [ 1 , "2" ] } } `, "nested.limits[1]", "nested.limits[1] must be a whole number."},
		{`{"nested":{"limits":{}}}`, "nested.limits", "nested.limits must be a list."},
		{`{"session_duration_minutes":"60"}`, "session_duration_minutes", "session_duration_minutes must be a whole number."},
		{`{"session_duration_minutes":1.5}`, "session_duration_minutes", "session_duration_minutes must be a whole number."},
		{`{"session_duration_minutes":1e30}`, "session_duration_minutes", "session_duration_minutes is out of range."},
		{`{"session_duration_minutes":-1e300}`, "session_duration_minutes", "session_duration_minutes is out of range."},
		{`{"session_duration_minutes":99999999999999999999}`, "session_duration_minutes", "session_duration_minutes is out of range."},
		{`{"session_duration_minutes":1e999}`, "session_duration_minutes", "session_duration_minutes is out of range."},
		{`{"session_duration_minutes":6e1}`, "session_duration_minutes",
			"session_duration_minutes must be a whole number written in digits only, without a decimal point or exponent."},
		{`{"small":256}`, "small", "small is out of range."},
		{`{"small":-1}`, "small", "small is out of range."},
		{`{"small":-0.5}`, "small", "small must be a whole number."},
		{`{"ratio":1e400}`, "ratio", "ratio is out of range."},
		{`{"ratio":"x"}`, "ratio", "ratio must be a number."},
		{`[]`, "", "The request body must be a JSON object."},
		{`"x"`, "", "The request body must be a JSON object."},
		// A nested Unmarshal's offset is into its own bytes: Go's path
		// is the answer then, not whatever the offset falls on.
		{`{"pad":"xxxxxxxxxxxx","wrapped":{"v":"s"}}`, "wrapped.v", "wrapped.v must be a whole number."},
	} {
		var dst mismatchTarget
		err := Decode(httptest.NewRequest("POST", "/", strings.NewReader(c.body)), &dst)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Type != apierr.InvalidRequest {
			t.Errorf("Decode(%s) = %v, want invalid_request", c.body, err)
			continue
		}
		if e.Message != c.message || e.Details["field"] != c.field {
			t.Errorf("Decode(%s) = %q naming %q; want %q naming %q", c.body, e.Message, e.Details["field"], c.message, c.field)
		}
	}
}

// The walk for the path never runs past the text or panics on what is not
// JSON (a Decoder's body may go on after its value), and finds nothing
// where nothing holds the offset.
func TestFieldPathOddText(t *testing.T) {
	t.Parallel()
	for _, body := range []string{``, `{`, `{"a"`, `{"a":`, `{"a":[1,`, `["\`, `{"a":1,}`, `{"a" 1}`, `[,,]`, `}`, `{"a":1} trailing`} {
		for off := range len(body) + 2 {
			err := &json.UnmarshalTypeError{Value: "number", Type: nil, Offset: int64(off), Field: "a"}
			_ = FieldPath([]byte(body), err)
		}
	}
	if got := FieldPath([]byte(`{"a":1}`), &json.UnmarshalTypeError{Offset: 99, Field: "Go.a"}); got != "Go.a" {
		t.Errorf("FieldPath past the body = %q", got)
	}
}
