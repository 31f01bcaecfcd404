// Package locale knows the languages emails and SMS codes are written in:
// the four the API family documents (English, Spanish, French, Brazilian
// Portuguese), and how a request's BCP 47 tag picks one of them.
package locale

import "strings"

// Tag is a supported language. The zero value is English, the language of
// everything sent without a request locale.
type Tag string

// The supported tags, spelled as the API family spells them.
const (
	English             Tag = "en"
	Spanish             Tag = "es"
	French              Tag = "fr"
	BrazilianPortuguese Tag = "pt-br"
)

// All is every supported tag, English first.
var All = []Tag{English, Spanish, French, BrazilianPortuguese}

// Parse picks the supported language a request's tag asks for. Matching
// ignores case and reads "_" as "-" (callers send both); a region or
// script narrows a language this server writes one way, so "en-GB" is
// English and "es-MX" Spanish. Portuguese is only written as in Brazil,
// so any Portuguese tag is pt-br. The empty tag is English (the
// documented default); anything else is not ok.
func Parse(s string) (Tag, bool) {
	v := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
	if v == "" {
		return English, true
	}
	lang, _, _ := strings.Cut(v, "-")
	if lang == "" || (lang != v && strings.HasSuffix(v, "-")) {
		return "", false
	}
	switch lang {
	case "en":
		return English, true
	case "es":
		return Spanish, true
	case "fr":
		return French, true
	case "pt":
		return BrazilianPortuguese, true
	}
	return "", false
}

// Or returns t, or English when t is the zero Tag or not a supported tag
// (a caller that never parsed one).
func (t Tag) Or() Tag {
	for _, s := range All {
		if t == s {
			return t
		}
	}
	return English
}

// HTMLLang is the tag as an HTML lang attribute writes it, region upper
// case (BCP 47's customary form): "pt-BR".
func (t Tag) HTMLLang() string {
	t = t.Or()
	if lang, region, ok := strings.Cut(string(t), "-"); ok {
		return lang + "-" + strings.ToUpper(region)
	}
	return string(t)
}

// Supported lists the tags for an error message: "en, es, fr, pt-br".
func Supported() string {
	s := make([]string, len(All))
	for i, t := range All {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}
