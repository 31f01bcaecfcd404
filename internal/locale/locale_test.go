package locale_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/locale"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want locale.Tag
		ok   bool
	}{
		{"", locale.English, true},
		{"  ", locale.English, true},
		{"en", locale.English, true},
		{"EN", locale.English, true},
		{"en-US", locale.English, true},
		{"EN-us", locale.English, true},
		{"en_GB", locale.English, true},
		{"es", locale.Spanish, true},
		{"es-MX", locale.Spanish, true},
		{"ES_419", locale.Spanish, true},
		{"fr", locale.French, true},
		{"fr-CA", locale.French, true},
		{"Fr_fr", locale.French, true},
		{"pt-br", locale.BrazilianPortuguese, true},
		{"pt-BR", locale.BrazilianPortuguese, true},
		{"pt_BR", locale.BrazilianPortuguese, true},
		{"pt", locale.BrazilianPortuguese, true},
		{"pt-PT", locale.BrazilianPortuguese, true},
		{"de", "", false},
		{"de-DE", "", false},
		{"eng", "", false},
		{"esp", "", false},
		{"e", "", false},
		{"english", "", false},
		{"-en", "", false},
		{"en-", "", false},
		{"frr", "", false},
		{"ptbr", "", false},
		{"zh-Hant", "", false},
	}
	for _, tc := range tests {
		got, ok := locale.Parse(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Parse(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestOrAndHTMLLang(t *testing.T) {
	t.Parallel()
	for in, want := range map[locale.Tag]string{"": "en", "en": "en", "es": "es", "fr": "fr", "pt-br": "pt-BR", "xx": "en"} {
		if got := in.HTMLLang(); got != want {
			t.Errorf("%q.HTMLLang() = %q, want %q", in, got, want)
		}
	}
	if got := locale.Tag("").Or(); got != locale.English {
		t.Errorf("zero Tag.Or() = %q", got)
	}
	if got := locale.Supported(); got != "en, es, fr, pt-br" {
		t.Errorf("Supported() = %q", got)
	}
}
