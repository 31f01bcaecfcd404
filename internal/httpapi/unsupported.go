package httpapi

import (
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
)

// Refusing what the server cannot honour: the API family accepts request
// fields this server has no machinery for (custom email templates, email
// languages other than English). Accepting them silently would tell the
// caller a promise was kept, so each is refused with unsupported_parameter
// naming the field, and an unset field costs nothing.

// Unsupported is a request type with such fields. Decode calls
// Unsupported after reading the body, which returns RefuseUnsupported of
// them.
type Unsupported interface {
	Unsupported() error
}

// Field is one request field and whether the caller set it.
type Field struct {
	Name string
	Set  bool
}

// Set is a Field for a string value: set when non-empty.
func Set(name, value string) Field { return Field{Name: name, Set: strings.TrimSpace(value) != ""} }

// Locale is a Field for a locale: set when it asks for a language other
// than English, the only language of the emails.
func Locale(name, value string) Field {
	v := strings.ToLower(strings.TrimSpace(value))
	return Field{Name: name, Set: v != "" && v != "en" && !strings.HasPrefix(v, "en-") && !strings.HasPrefix(v, "en_")}
}

// RefuseUnsupported answers unsupported_parameter for the first field the
// caller set, or nil.
func RefuseUnsupported(fields ...Field) error {
	for _, f := range fields {
		if f.Set {
			return apierr.New(apierr.UnsupportedParameter).
				WithMessage(f.Name + " is not supported by this server; leave it out.").
				WithDetails(map[string]any{"parameter": f.Name})
		}
	}
	return nil
}

// EnglishOnly is embedded by a request whose one field this server cannot
// honour is locale: the codes and emails a login may send on the way are
// written in English only, so another language is refused rather than
// silently ignored. It decodes the field and gives the request its
// Unsupported method; a request with more such fields writes its own.
type EnglishOnly struct {
	Locale string `json:"locale"`
}

// Unsupported refuses a locale other than English.
func (e EnglishOnly) Unsupported() error { return RefuseUnsupported(Locale("locale", e.Locale)) }
