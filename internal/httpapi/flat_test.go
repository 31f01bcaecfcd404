package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"unsafe"
)

// flatTarget is a request of two string fields read the fast way, beside
// the other kinds of field a request may have.
type flatTarget struct {
	Token string `json:"session_token"`
	JWT   string `json:"session_jwt"`
	N     *int   `json:"n"`
}

func (f *flatTarget) StringField(key string) *string {
	switch key {
	case "session_token":
		return &f.Token
	case "session_jwt":
		return &f.JWT
	}
	return nil
}

// The fast way takes the usual bodies and leaves every other one to
// encoding/json, untouched.
func TestDecodeFlat(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body string
		fast bool
		want flatTarget
	}{
		{`{"session_jwt":"eyJ.a.b"}`, true, flatTarget{JWT: "eyJ.a.b"}},
		{" {\n\t\"session_token\" : \"tok\" ,\"session_jwt\":\"j\"\r}\n", true, flatTarget{Token: "tok", JWT: "j"}},
		{`{"session_token":"a","session_token":"b"}`, true, flatTarget{Token: "b"}},
		{`{}`, true, flatTarget{}},
		{`{"session_token":"é"}`, true, flatTarget{Token: "é"}},
		{`{"Session_Token":"a"}`, false, flatTarget{}},       // encoding/json matches it case-insensitively
		{`{"session_token":"a\"b"}`, false, flatTarget{}},    // an escape
		{`{"session_token":"a","n":1}`, false, flatTarget{}}, // not a string field
		{`{"session_token":"a","x":"y"}`, false, flatTarget{}},
		{`{"session_token":"a"} x`, false, flatTarget{}},
		{`{"session_token":"a",}`, false, flatTarget{}},
		{`{"session_token":1}`, false, flatTarget{}},
		{`{"session_token":"a","session_token":"b","session_token":"c","session_token":"d","session_jwt":"e"}`, false, flatTarget{}},
	} {
		var got flatTarget
		if fast, err := decodeFast([]byte(c.body), &got); err != nil || fast != c.fast || got != c.want {
			t.Errorf("decodeFast(%q) = %v, %v, %+v; want %v, %+v", c.body, fast, err, got, c.fast, c.want)
		}
	}
}

// Each way of looking at the strings takes what it should: unchecked, only
// printable ASCII without a backslash; checked (the body is valid UTF-8),
// anything but an escape or a control character.
func TestDecodeFlatModes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body            string
		lazy, whenClean bool
	}{
		{`{"session_jwt":"eyJ.a.b"}`, true, true},
		{" {\n\t\"session_token\" : \"tok\"\r}\n", true, true},
		{`{"session_token":"é"}`, false, true},
		{`{"séssion_token":"a"}`, false, false},
		{"{\"session_token\":\"a\tb\"}", false, false},
		{`{"session_token":"a\u0041"}`, false, false},
		{"{\"session_token\":\"\x7f\"}", true, true},
	} {
		for _, checked := range []bool{false, true} {
			var got flatTarget
			want := c.lazy
			if checked {
				want = c.whenClean
			}
			if ok := decodeFlat([]byte(c.body), &got, checked); ok != want {
				t.Errorf("decodeFlat(%q, checked %v) = %v, want %v", c.body, checked, ok, want)
			}
		}
	}
}

// FuzzDecodeFlat holds the fast way to encoding/json: whatever body it
// takes, it must fill exactly what json.Unmarshal fills, and when it
// declines it must have set nothing.
func FuzzDecodeFlat(f *testing.F) {
	f.Add([]byte(`{"session_jwt":"eyJ.a.b"}`))
	f.Add([]byte(`{"session_token":"a","session_token":"b"}`))
	f.Add([]byte(`{"SESSION_JWT":"a","session_jwt":"b"}`))
	f.Add([]byte(`{"session_token":"a\u00e9"}`))
	f.Add([]byte(" {\"session_jwt\" :\"x\"}\t"))
	f.Fuzz(func(t *testing.T, body []byte) {
		var fast flatTarget
		ok, _ := decodeFast(body, &fast)
		if cleanJSON(body) != nil {
			if ok {
				t.Fatalf("decodeFast took %q, which cleanJSON refuses", body)
			}
			return
		}
		if !ok {
			if fast != (flatTarget{}) {
				t.Fatalf("decodeFlat(%q) declined but set %+v", body, fast)
			}
			return
		}
		var want flatTarget
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatalf("decodeFlat took %q, which encoding/json refuses: %v", body, err)
		}
		if fast.Token != want.Token || fast.JWT != want.JWT || want.N != nil {
			t.Fatalf("decodeFlat(%q) = %+v, encoding/json %+v", body, fast, want)
		}
	})
}

// Decode goes the fast way for a StringFields target and still refuses
// what it always refused.
func TestDecodeUsesFlat(t *testing.T) {
	t.Parallel()
	var got flatTarget
	if err := Decode(httptest.NewRequest("POST", "/", bytes.NewReader([]byte(`{"session_jwt":"j"}`))), &got); err != nil || got.JWT != "j" {
		t.Fatalf("Decode = %v, %+v", err, got)
	}
	if err := Decode(httptest.NewRequest("POST", "/", bytes.NewReader([]byte(`{"session_jwt":"\u0000"}`))), &got); err == nil {
		t.Fatal("a NUL passed the fast way")
	}
	if err := Decode(httptest.NewRequest("POST", "/", bytes.NewReader([]byte("{\"session_jwt\":\"a\xffb\"}"))), &got); err == nil {
		t.Fatal("invalid UTF-8 passed the fast way")
	}
	if err := Decode(httptest.NewRequest("POST", "/", bytes.NewReader([]byte(`{"session_jwt":1}`))), &got); err == nil {
		t.Fatal("a number for a string field passed")
	}
}

// BenchmarkPlainString reads a value the size of a session JWT with a few
// custom claims (~1.6 KB), the longest string the session check reads:
//
//	go test ./internal/httpapi/ -run '^$' -bench PlainString -benchmem
func BenchmarkPlainString(b *testing.B) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
	body := make([]byte, 0, 1602)
	body = append(body, '"')
	for i := range 1600 {
		body = append(body, alphabet[i*7%len(alphabet)])
	}
	body = append(body, '"')
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, _, ok := plainString(body, 0, true); !ok {
			b.Fatal("refused")
		}
	}
}

// plainString refuses a control character or a backslash at any place in
// a string of any length, across the word boundaries hasControl reads, and
// takes every other byte: 0x20, 0x7f and the bytes from 0x80 (UTF-8).
func TestPlainStringBoundaries(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 40; n++ {
		for _, fill := range []byte{'a', 0x20, 0x7f, 0x80, 0xff} {
			for pos := range n {
				for c := range 256 {
					s := bytes.Repeat([]byte{fill}, n)
					s[pos] = byte(c)
					if c == '"' {
						continue
					}
					body := append(append([]byte{'"'}, s...), '"')
					got, next, ok := plainString(body, 0, true)
					want := c >= 0x20 && c != '\\'
					if ok != want || (ok && (!bytes.Equal(got, s) || next != len(body))) {
						t.Fatalf("plainString(%q) = %q, %d, %v; want ok=%v", body, got, next, ok, want)
					}
				}
			}
		}
	}
}

// plainText passes printable ASCII without a backslash and nothing else:
// any other byte at any place, in bodies of every length around the
// eight-byte words it reads, fails it (a text it passed wrongly would
// skip cleanJSON).
func TestPlainText(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 25; n++ {
		for _, fill := range []byte{'a', 0x20, 0x7f, '[', ']', 0x21} {
			for pos := range n {
				for c := range 256 {
					s := bytes.Repeat([]byte{fill}, n)
					s[pos] = byte(c)
					want := c >= 0x20 && c < 0x80 && c != '\\'
					if got := plainText(s); got != want {
						t.Fatalf("plainText(%q) = %v, want %v", s, got, want)
					}
				}
			}
		}
	}
	if !plainText(nil) {
		t.Fatal("the empty text is plain")
	}
}

// internTarget hands out its own copies of the values it knows.
type internTarget struct {
	flatTarget
	known map[string]string
}

func (f *internTarget) Interned(field *string, value []byte) (string, bool) {
	if field != &f.JWT {
		return "", false
	}
	s, ok := f.known[string(value)]
	return s, ok
}

// An Interner's string replaces the copy for the values it knows; the
// rest are copied from the body as usual.
func TestDecodeFlatInterns(t *testing.T) {
	t.Parallel()
	own := strings.Clone("known.jwt")
	f := &internTarget{known: map[string]string{own: own}}
	if !decodeFlat([]byte(`{"session_jwt":"known.jwt","session_token":"known.jwt"}`), f, false) {
		t.Fatal("declined")
	}
	if f.JWT != own || unsafe.StringData(f.JWT) != unsafe.StringData(own) {
		t.Errorf("JWT = %q, not the interner's copy", f.JWT)
	}
	if f.Token != own || unsafe.StringData(f.Token) == unsafe.StringData(own) {
		t.Errorf("Token = %q, which the interner declined, is not a copy of the body", f.Token)
	}
	g := &internTarget{known: map[string]string{own: own}}
	if !decodeFlat([]byte(`{"session_jwt":"other.jwt"}`), g, false) || g.JWT != "other.jwt" {
		t.Errorf("an unknown value was read as %q", g.JWT)
	}
	// A known value's bytes are not looked at again, which is why an
	// Interner may know only plain values: one holding a tab shows it.
	tab := "known\tjwt"
	h := &internTarget{known: map[string]string{tab: tab}}
	if !decodeFlat([]byte(`{"session_jwt":"`+tab+`"}`), h, false) || h.JWT != tab {
		t.Errorf("the known value was looked at again: %q", h.JWT)
	}
	if decodeFlat([]byte(`{"session_token":"`+tab+`"}`), h, false) {
		t.Error("an unknown value with a tab was taken")
	}
}
