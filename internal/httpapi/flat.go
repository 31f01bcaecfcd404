package httpapi

import (
	"bytes"
	"encoding/binary"
)

// StringFields is a request type whose usual body is a flat JSON object of
// plain strings, such as the backend session check's {"session_jwt": ...}.
// Decode reads such a body itself instead of through encoding/json, which
// scans a body twice (validate, then decode) byte by byte: for a session
// JWT of a kilobyte and more that was most of a check's own CPU. Any other
// body (a key that is not spelled exactly as a field, a number, an object,
// an escape) goes to encoding/json as before, so the result is the same
// either way; FuzzDecodeFlat holds the two to that.
type StringFields interface {
	// StringField returns the field key fills, or nil when key is not
	// exactly the JSON name of one of its string fields.
	StringField(key string) *string
}

// Interner is a StringFields whose values are often strings the process
// already holds, such as a session JWT presented on every request:
// Interned returns that string when it equals value, which spares copying
// the value out of the request body, and looking at its bytes at all. The
// string returned must be one the process owns (never one sharing the
// body's memory), and a value it is returned for must be printable ASCII
// without a backslash (plainText): decodeFlat takes that value's bytes as
// checked.
type Interner interface {
	Interned(field *string, value []byte) (string, bool)
}

// decodeFast reads body into f without encoding/json when it can, and
// reports whether it did; the error is cleanJSON's refusal. The usual body
// is read in one pass that checks its bytes as it goes; any other body is
// checked whole (cleanJSON) before a second look at it, for UTF-8 strings
// without escapes.
func decodeFast(body []byte, f StringFields) (bool, error) {
	if decodeFlat(body, f, false) {
		return true, nil
	}
	if plainText(body) {
		return false, nil
	}
	if err := cleanJSON(body); err != nil {
		return false, err
	}
	return decodeFlat(body, f, true), nil
}

// maxFlatFields bounds the fields a flat body may set (more is unusual,
// and goes to encoding/json).
const maxFlatFields = 4

// decodeFlat fills dst from body and reports true when body is one object
// whose keys are dst's string fields and whose values are strings without
// escapes or control characters. It sets nothing when it reports false.
//
// When checked is false nothing is known of body yet, and every string must
// be printable ASCII without a backslash (plainText), except a value an
// Interner knows, whose bytes are then not looked at: a session JWT of
// nearly two kilobytes is most of the usual body, and scanning it was
// about 6% of the in-process check's CPU profile. Between the strings the parser takes only
// JSON whitespace and punctuation, so a body it takes this way is what
// cleanJSON would pass. When checked is true, body is valid UTF-8 without
// an escaped NUL (cleanJSON passed it), and a string is refused for an
// escape or a control character only.
func decodeFlat(body []byte, dst StringFields, checked bool) bool {
	in, _ := dst.(Interner)
	var fields [maxFlatFields]*string
	var values [maxFlatFields][]byte
	var interned [maxFlatFields]string
	var known [maxFlatFields]bool
	n := 0
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return false
	}
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return skipSpace(body, i+1) == len(body)
	}
	for {
		key, next, ok := plainString(body, i, checked)
		if !ok || n == maxFlatFields {
			return false
		}
		if fields[n] = dst.StringField(string(key)); fields[n] == nil {
			return false
		}
		i = skipSpace(body, next)
		if i >= len(body) || body[i] != ':' {
			return false
		}
		val, next, ok := quoted(body, skipSpace(body, i+1))
		if !ok {
			return false
		}
		if in != nil {
			interned[n], known[n] = in.Interned(fields[n], val)
		}
		if !known[n] && !takeAsIs(val, checked) {
			return false
		}
		values[n] = val
		n++
		i = skipSpace(body, next)
		switch {
		case i < len(body) && body[i] == ',':
			i = skipSpace(body, i+1)
		case i < len(body) && body[i] == '}' && skipSpace(body, i+1) == len(body):
			// A repeated key: the last one wins, as with encoding/json.
			for k := range n {
				if known[k] {
					*fields[k] = interned[k]
				} else {
					*fields[k] = string(values[k])
				}
			}
			return true
		default:
			return false
		}
	}
}

// quoted returns the bytes of the string that starts at b[i], up to the
// next quote, and the index after it. An escaped quote ends it early; the
// backslash left at its end fails takeAsIs, and is no value an Interner
// knows.
func quoted(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	end := bytes.IndexByte(b[i+1:], '"')
	if end < 0 {
		return nil, 0, false
	}
	return b[i+1 : i+1+end], i + 2 + end, true
}

// takeAsIs reports whether s, a string's bytes between its quotes, may be
// taken as it is (see decodeFlat for checked).
func takeAsIs(s []byte, checked bool) bool {
	if checked {
		return bytes.IndexByte(s, '\\') < 0 && !hasControl(s)
	}
	return plainText(s)
}

// plainString returns the string that starts at b[i] and the index after
// it, when takeAsIs takes it.
func plainString(b []byte, i int, checked bool) ([]byte, int, bool) {
	s, next, ok := quoted(b, i)
	if !ok || !takeAsIs(s, checked) {
		return nil, 0, false
	}
	return s, next, true
}

// hasControl reports whether s holds a byte below 0x20. A session JWT is
// over a kilobyte, so it looks at eight bytes at a time: subtracting 0x20
// from every byte of a word borrows into a byte's top bit only when that
// byte, or an earlier one, is below 0x20, and & ^x drops the bytes whose top
// bit was already set (0x80 and above, which are allowed). The first byte
// below 0x20 always shows; a byte after it may show falsely, which does not
// change the answer.
func hasControl(s []byte) bool {
	const ones, highs = 0x2020202020202020, 0x8080808080808080
	for len(s) >= 16 {
		x, y := binary.LittleEndian.Uint64(s), binary.LittleEndian.Uint64(s[8:])
		if ((x-ones)&^x|(y-ones)&^y)&highs != 0 {
			return true
		}
		s = s[16:]
	}
	if len(s) >= 8 {
		x := binary.LittleEndian.Uint64(s)
		if (x-ones)&^x&highs != 0 {
			return true
		}
		s = s[8:]
	}
	for _, c := range s {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// plainText reports whether b is printable ASCII without a backslash: then
// it is valid UTF-8 with no escape and no control character, so neither
// cleanJSON nor plainString need look at it again. A session JWT, the
// longest body the session check reads, is such a text: one pass over it
// instead of four.
func plainText(b []byte) bool {
	const highs, spaces, slashes, ones = 0x8080808080808080, 0x2020202020202020, 0x5c5c5c5c5c5c5c5c, 0x0101010101010101
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		y := x ^ slashes // a zero byte where b has a backslash
		// A set high bit, a byte below 0x20 or a zero byte of y (the
		// classic has-less-than and has-zero word tests).
		if (x|(x-spaces)&^x|(y-ones)&^y)&highs != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 || c >= 0x80 || c == '\\' {
			return false
		}
	}
	return true
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
