package httpapi

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
)

// templated is a request with a field this server cannot honour.
type templated struct {
	Email      string `json:"email_address"`
	TemplateID string `json:"login_template_id"`
	Locale     string `json:"locale"`
}

func (req templated) Unsupported() error {
	return RefuseUnsupported(Set("login_template_id", req.TemplateID), Locale("locale", req.Locale))
}

// Decode refuses what a request type cannot honour as part of decoding it,
// naming the first such field, and lets English and unset fields through.
func TestDecodeRefusesUnsupportedFields(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body, refused string
	}{
		{`{"email_address":"a@b.test"}`, ""},
		{`{"email_address":"a@b.test","locale":"en-US"}`, ""},
		{`{"email_address":"a@b.test","locale":"fr"}`, "locale"},
		{`{"login_template_id":"t1","locale":"fr"}`, "login_template_id"},
		{``, ""},
	}
	for _, c := range cases {
		var req templated
		err := Decode(httptest.NewRequest("POST", "/x", strings.NewReader(c.body)), &req)
		var ae *apierr.Error
		switch {
		case c.refused == "" && err != nil:
			t.Fatalf("%s: %v", c.body, err)
		case c.refused == "":
		case !errors.As(err, &ae) || ae.Type != apierr.UnsupportedParameter || ae.Details["parameter"] != c.refused:
			t.Fatalf("%s: got %v, want unsupported_parameter naming %s", c.body, err, c.refused)
		}
	}
}
