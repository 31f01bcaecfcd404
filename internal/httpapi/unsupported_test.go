package httpapi

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/locale"
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
// naming the first such field, and lets the supported languages and unset
// fields through.
func TestDecodeRefusesUnsupportedFields(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body, refused string
	}{
		{`{"email_address":"a@b.test"}`, ""},
		{`{"email_address":"a@b.test","locale":"en-US"}`, ""},
		{`{"email_address":"a@b.test","locale":"fr"}`, ""},
		{`{"email_address":"a@b.test","locale":"pt_BR"}`, ""},
		{`{"email_address":"a@b.test","locale":"de"}`, "locale"},
		{`{"login_template_id":"t1","locale":"de"}`, "login_template_id"},
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

// A request that embeds RequestLocale reads locale as its own field,
// refuses a language the server does not write with it (the message lists
// the ones it does), and gives the request the one it asked for.
func TestRequestLocaleRefusesOtherLanguages(t *testing.T) {
	t.Parallel()
	type login struct {
		Code string `json:"code"`
		RequestLocale
	}
	for body, want := range map[string]locale.Tag{
		`{"code":"1","locale":"de"}`:    "",
		`{"code":"1","locale":"zz-ES"}`: "",
		`{"code":"1","locale":"en_GB"}`: locale.English,
		`{"code":"1","locale":"es-MX"}`: locale.Spanish,
		`{"code":"1","locale":"FR"}`:    locale.French,
		`{"code":"1","locale":"pt-BR"}`: locale.BrazilianPortuguese,
		`{"code":"1"}`:                  locale.English,
	} {
		var req login
		err := Decode(httptest.NewRequest("POST", "/x", strings.NewReader(body)), &req)
		var ae *apierr.Error
		switch {
		case req.Code != "1":
			t.Fatalf("%s: code %q", body, req.Code)
		case want != "" && err != nil:
			t.Fatalf("%s: %v", body, err)
		case want != "" && (req.Tag() != want || locale.From(req.In(context.Background())) != want):
			t.Fatalf("%s: tag %q, in context %q, want %q", body, req.Tag(), locale.From(req.In(context.Background())), want)
		case want == "" && (!errors.As(err, &ae) || ae.Details["parameter"] != "locale" ||
			!strings.Contains(ae.Message, "en, es, fr, pt-br")):
			t.Fatalf("%s: got %v, want locale refused listing the supported ones", body, err)
		}
	}
}
