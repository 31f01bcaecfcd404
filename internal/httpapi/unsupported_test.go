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

// A request that embeds EnglishOnly reads locale as its own field and
// refuses any language but English with it.
func TestEnglishOnlyRefusesOtherLanguages(t *testing.T) {
	t.Parallel()
	type login struct {
		Code string `json:"code"`
		EnglishOnly
	}
	for body, refused := range map[string]bool{
		`{"code":"1","locale":"de"}`:    true,
		`{"code":"1","locale":"en_GB"}`: false,
		`{"code":"1"}`:                  false,
	} {
		var req login
		err := Decode(httptest.NewRequest("POST", "/x", strings.NewReader(body)), &req)
		var ae *apierr.Error
		switch {
		case req.Code != "1":
			t.Fatalf("%s: code %q", body, req.Code)
		case !refused && err != nil:
			t.Fatalf("%s: %v", body, err)
		case refused && (!errors.As(err, &ae) || ae.Details["parameter"] != "locale"):
			t.Fatalf("%s: got %v, want locale refused", body, err)
		}
	}
}
