package httpapi

import (
	"bytes"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latchkey/latchkey/internal/apierr"
)

// decodeTarget has every kind of field a request type declares.
type decodeTarget struct {
	S  string            `json:"s"`
	N  int               `json:"n"`
	P  *int              `json:"p"`
	B  bool              `json:"b"`
	L  []string          `json:"l"`
	M  map[string]any    `json:"m"`
	MS map[string]string `json:"ms"`
	O  *struct {
		X string `json:"x"`
	} `json:"o"`
}

// FuzzDecode feeds Decode arbitrary bodies: it never panics, every failure
// is a catalogue error with a 4xx status, and what it accepts holds no NUL
// and no invalid UTF-8 (which PostgreSQL would refuse with a 500).
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"s":"a","n":1,"l":["x"],"m":{"k":[1,{"z":null}]},"o":{"x":"y"}}`))
	f.Add([]byte(`{"s":"\u0000"}`))
	f.Add([]byte(`{"s":"\\u0000","ms":{"a":"\ud800"}}`))
	f.Add([]byte("{\"s\":\"\xff\"}"))
	f.Add([]byte(`{"n":1e400}`))
	f.Add([]byte(`{"s":"\ud83d\ude00","l":["\ud800"]}`))
	f.Add([]byte(`{"o":{"x":"\uDE00\uD83D"}}`))
	f.Add([]byte(`[[[[[[[[[[`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, body []byte) {
		var dst decodeTarget
		err := Decode(httptest.NewRequest("POST", "/", bytes.NewReader(body)), &dst)
		if err != nil {
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status < 400 || e.Status > 499 {
				t.Fatalf("Decode(%q): %v is not a 4xx catalogue error", body, err)
			}
			return
		}
		// U+FFFD is what encoding/json puts in place of what it cannot
		// read (invalid UTF-8, a lone surrogate): it is only taken when the
		// client wrote it.
		sentFFFD := bytes.Contains(body, []byte("\uFFFD")) || bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`))
		for _, s := range decodedStrings(&dst) {
			if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 || (!sentFFFD && strings.ContainsRune(s, utf8.RuneError)) {
				t.Fatalf("Decode(%q) accepted %q", body, s)
			}
		}
	})
}

func decodedStrings(d *decodeTarget) []string {
	out := append([]string{d.S}, d.L...)
	for k, v := range d.MS {
		out = append(out, k, v)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				out = append(out, k)
				walk(e)
			}
		}
	}
	walk(map[string]any(d.M))
	if d.O != nil {
		out = append(out, d.O.X)
	}
	return out
}
