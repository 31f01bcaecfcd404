package displaytext

import (
	"strings"
	"testing"
)

func TestForbidden(t *testing.T) {
	for _, r := range []rune{'\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069',
		'\u200e', '\u200f', '\u061c', '\x00', '\x07', '\n', '\r', '\x7f', '\u0085'} {
		if !Forbidden(r) {
			t.Errorf("Forbidden(%U) = false", r)
		}
	}
	// Invisible, but part of how real names and emoji are written.
	for _, r := range []rune{'a', ' ', '\u200d', '\u200c', '\u200b', '\u00ad', '\ufe0f', '\U000e0067', '\u0301', '\u05d0', '\u0627'} {
		if Forbidden(r) {
			t.Errorf("Forbidden(%U) = true", r)
		}
	}
}

func TestBlank(t *testing.T) {
	for _, s := range []string{"", "   ", "\u200b\u200b", "\u00ad", "\u200d\u200c", "\u2060\ufeff", "\u0301\u0301\u0301",
		"\u3164", "\u115f\u1160", "\uffa0", "\u2800", "\u3000\u00a0", "\ufe0f"} {
		if !Blank(s) {
			t.Errorf("Blank(%q) = false", s)
		}
	}
	for _, s := range []string{"a", "Ada\u00ad", "👩\u200d👩\u200d👧\u200d👦", "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
		"می\u200cخواهم", "क्\u200dष", "7", "-", "€", "北京", "\u200b.\u200b"} {
		if Blank(s) {
			t.Errorf("Blank(%q) = true", s)
		}
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"Acme\u202egnp.exe":              "Acmegnp.exe",
		"\u2067Acme\u2069":               "Acme",
		"\u200eAda\u200f \u061cLovelace": "Ada Lovelace",
		"\u202e\u200b":                   "",
		"\u200b\u200b":                   "",
		"👩\u200d💻 Ada":                   "👩\u200d💻 Ada",
		"Ada\u00ad":                      "Ada\u00ad",
		"":                               "",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
		if got := Clean(in); strings.ContainsFunc(got, IsBidiControl) {
			t.Errorf("Clean(%q) kept a bidi control: %q", in, got)
		}
	}
}

func TestForbiddenInText(t *testing.T) {
	for _, s := range []string{"Line one\nline two", "Line one\r\nline two\r\n", "a\tb", "", "👩\u200d💻 Ada", "\n\n"} {
		if ForbiddenInText(s) {
			t.Errorf("ForbiddenInText(%q) = true", s)
		}
	}
	for _, s := range []string{"a\x1b[31mred", "a\rb", "a\r", "a\n\r", "a\x08b", "a\x00", "\x7f", "a\u0085b", "Reads \u202e",
		"\u2066x\u2069", "a\u000bb", "a\u000cb"} {
		if !ForbiddenInText(s) {
			t.Errorf("ForbiddenInText(%q) = false", s)
		}
	}
}

// Line and Text trim, bound by characters (not bytes), refuse with a
// sentence naming the field and the kind of character, and blank what
// shows nothing; Text keeps line breaks and tabs.
func TestLineAndText(t *testing.T) {
	for _, c := range []struct {
		name, in, want, why string
		text                bool
		max                 int
	}{
		{name: "trimmed", in: "  Ada  ", want: "Ada", max: 10},
		{name: "characters not bytes", in: strings.Repeat("漢", 10), want: strings.Repeat("漢", 10), max: 10},
		{name: "too long", in: strings.Repeat("a", 11), why: "f must be at most 10 characters.", max: 10},
		{name: "no bound", in: strings.Repeat("a", 5000), want: strings.Repeat("a", 5000)},
		{name: "control", in: "a\x07b", why: "f must not contain control characters."},
		{name: "line break in a line", in: "a\nb", why: "f must not contain control characters."},
		{name: "bidi", in: "Acme\u202egnp.exe", why: "f must not contain bidirectional formatting characters (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C)."},
		{name: "blank", in: "\u200b\u00ad", want: ""},
		{name: "text keeps lines", in: "one\r\ntwo\tthree\n", want: "one\r\ntwo\tthree", text: true},
		{name: "text lone CR", in: "one\rtwo", why: "f must not contain control characters other than line breaks and tabs.", text: true},
		{name: "text bidi", in: "x\u2066y", why: "f must not contain bidirectional formatting characters (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C).", text: true},
		{name: "text blank", in: "\u3164", want: "", text: true},
	} {
		check := Line
		if c.text {
			check = Text
		}
		got, why := check("f", c.in, c.max)
		if got != c.want || why != c.why {
			t.Errorf("%s: (%q, %q), want (%q, %q)", c.name, got, why, c.want, c.why)
		}
	}
}
