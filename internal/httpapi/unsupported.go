package httpapi

import (
	"context"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/locale"
)

// Refusing what the server cannot honour: the API family accepts request
// fields this server has no machinery for (custom email templates, email
// languages other than the four it writes). Accepting them silently would
// tell the caller a promise was kept, so each is refused with
// unsupported_parameter naming the field, and an unset field costs nothing.

// Unsupported is a request type with such fields. Decode calls
// Unsupported after reading the body, which returns RefuseUnsupported of
// them.
type Unsupported interface {
	Unsupported() error
}

// Field is one request field and whether the caller set it to something
// this server cannot honour; Message, when set, says why instead of the
// default "leave it out".
type Field struct {
	Name    string
	Set     bool
	Message string
}

// Set is a Field for a string value: set when non-empty.
func Set(name, value string) Field { return Field{Name: name, Set: strings.TrimSpace(value) != ""} }

// Locale is a Field for a locale: set when it asks for a language the
// emails and codes are not written in (locale.Parse).
func Locale(name, value string) Field {
	if _, ok := locale.Parse(value); ok {
		return Field{Name: name}
	}
	return Field{Name: name, Set: true,
		Message: name + " asks for a language this server does not write emails and codes in; use one of " +
			locale.Supported() + " (a region such as es-MX is matched by its language), or leave it out for en."}
}

// RefuseUnsupported answers unsupported_parameter for the first field the
// caller set, or nil.
func RefuseUnsupported(fields ...Field) error {
	for _, f := range fields {
		if f.Set {
			msg := f.Message
			if msg == "" {
				msg = f.Name + " is not supported by this server; leave it out."
			}
			return apierr.New(apierr.UnsupportedParameter).
				WithMessage(msg).
				WithDetails(map[string]any{"parameter": f.Name})
		}
	}
	return nil
}

// RequestLocale is embedded by a request whose one field this server may
// have to refuse is locale: the codes and emails a login may send on the
// way are written in the languages locale.Parse knows, so another is
// refused rather than silently answered in English. It decodes the field
// and gives the request its Unsupported method; a request with more such
// fields writes its own.
type RequestLocale struct {
	Locale string `json:"locale"`
}

// Unsupported refuses a locale this server does not write.
func (e RequestLocale) Unsupported() error { return RefuseUnsupported(Locale("locale", e.Locale)) }

// Tag is the language the request asked for (English when unset). Decode
// has refused any other, so an unknown one reads as English here.
func (e RequestLocale) Tag() locale.Tag { return LocaleTag(e.Locale) }

// In returns ctx carrying the request's language (locale.NewContext), for
// what a login sends by itself on the way (an MFA SMS code).
func (e RequestLocale) In(ctx context.Context) context.Context {
	return locale.NewContext(ctx, e.Tag())
}

// LocaleTag is the language of a locale field Decode has let through.
func LocaleTag(value string) locale.Tag {
	t, _ := locale.Parse(value)
	return t.Or()
}
