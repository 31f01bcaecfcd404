package notify

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	texttemplate "text/template"

	"github.com/latchkey/latchkey/internal/locale"
)

// catalogue is one language's words, by key (see english). The template
// files name a key with {{template "key" .}}; subjects and SMS texts are
// keys executed alone (say).
type catalogue map[string]string

// catalogues holds one catalogue per supported language.
var catalogues = map[locale.Tag]catalogue{
	locale.English:             english,
	locale.Spanish:             spanish,
	locale.French:              french,
	locale.BrazilianPortuguese: brazilianPortuguese,
}

// defines writes c as template definitions, in key order so every parse of
// it is the same.
func (c catalogue) defines() string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "{{define %q}}%s{{end}}", k, c[k])
	}
	return b.String()
}

// phrases are the catalogues as text templates, for the lines that are not
// part of a body (subjects, SMS texts); parsed once per language on first
// use.
var phrases = func() map[locale.Tag]func() *texttemplate.Template {
	m := make(map[locale.Tag]func() *texttemplate.Template, len(catalogues))
	for tag, c := range catalogues {
		m[tag] = sync.OnceValue(func() *texttemplate.Template {
			return texttemplate.Must(texttemplate.New("phrases").Parse(c.defines()))
		})
	}
	return m
}()

// say renders the catalogue's key in v's language with v's fields. The
// result is plain text, not escaped: a subject goes into a header (names
// in v are already one line), an SMS is text.
func say(v view, key string) (string, error) {
	var b bytes.Buffer
	if err := phrases[v.loc.Or()]().ExecuteTemplate(&b, key, v); err != nil {
		return "", fmt.Errorf("notify: %s in %s: %w", key, v.loc.Or(), err)
	}
	return b.String(), nil
}
