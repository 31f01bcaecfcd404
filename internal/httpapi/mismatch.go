package httpapi

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// TypeMismatch words a JSON value of the wrong type for the client, from
// the body it was decoded from: the field by its path in the body ("roles",
// "rbac_email_implicit_role_assignments[0]", "mfa.methods") and the JSON
// kind it must be, never Go's type or field names ("roles must be a list.").
// The path is "" for the body itself.
func TypeMismatch(body []byte, err *json.UnmarshalTypeError) (path, message string) {
	path = FieldPath(body, err)
	subject := path
	if subject == "" {
		subject = "The request body"
	}
	if literal, ok := strings.CutPrefix(err.Value, "number "); ok {
		if problem := numberProblem(literal, err.Type); problem != "" {
			return path, subject + problem
		}
	}
	return path, subject + " must be " + jsonKind(err.Type.Kind()) + "."
}

// numberProblem words what is wrong with a JSON number Unmarshal refused
// for a numeric field of type t, or returns "" when t is not numeric: the
// number is too large or small for the field (99999999999999999999 or
// 1e30 for an integer, 1e400 for any number), or not whole, or whole but
// written as Unmarshal reads no integer (1e3, 2.0).
func numberProblem(literal string, t reflect.Type) string {
	k := t.Kind()
	if !isInteger(k) {
		if k == reflect.Float32 || k == reflect.Float64 {
			return " is out of range."
		}
		return ""
	}
	v, err := strconv.ParseFloat(literal, 64)
	switch {
	case err != nil: // beyond any float64 (1e999): ParseFloat's only error for a JSON number
		return " is out of range."
	case v != math.Trunc(v):
		return " must be a whole number."
	case outOfRange(v, t), wholeNumber(literal): // digits only: rounded into range, if it was
		return " is out of range."
	}
	return " must be a whole number written in digits only, without a decimal point or exponent."
}

// outOfRange reports whether the whole number v is beyond what an integer
// of type t holds.
func outOfRange(v float64, t reflect.Type) bool {
	z := reflect.New(t).Elem()
	switch {
	case z.CanInt():
		return v < math.MinInt64 || v >= math.MaxInt64 || z.OverflowInt(int64(v))
	case v < 0:
		return true
	default:
		return v >= math.MaxUint64 || z.OverflowUint(uint64(v))
	}
}

// FieldPath names the value err is about by its path in body, in the
// body's own keys and with list indices, which the client wrote: err.Field
// is Go's path, which holds the Go name of each embedded struct the field
// was promoted through ("Settings.organization_name") and no index. The
// path is found from err.Offset, checked against err.Field's last name;
// should the two disagree (an error from a nested Unmarshal, whose offset
// is in other bytes), err.Field is the answer.
func FieldPath(body []byte, err *json.UnmarshalTypeError) string {
	f := pathFinder{body: body, off: int(err.Offset)}
	f.value(skipSpace(body, 0))
	if !f.found {
		return err.Field
	}
	if err.Field == "" {
		return f.path
	}
	last := err.Field[strings.LastIndexByte(err.Field, '.')+1:]
	for _, k := range f.keys {
		if strings.EqualFold(k, last) { // Unmarshal matches keys without case
			return f.path
		}
	}
	return err.Field
}

// jsonKind is the JSON kind, with its article, a value of kind k is read
// from.
func jsonKind(k reflect.Kind) string {
	switch {
	case k == reflect.String:
		return "a string"
	case k == reflect.Bool:
		return "a boolean"
	case k == reflect.Slice || k == reflect.Array:
		return "a list"
	case k == reflect.Map || k == reflect.Struct:
		return "a JSON object"
	case isInteger(k):
		return "a whole number"
	default:
		return "a number"
	}
}

func isInteger(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Uintptr
}

// wholeNumber reports whether a JSON number literal is written as an
// integer (digits, perhaps a minus): Unmarshal refuses such a number for
// an integer field only when the field cannot hold it.
func wholeNumber(literal string) bool {
	return literal != "" && strings.Trim(strings.TrimPrefix(literal, "-"), "0123456789") == ""
}

// pathFinder walks a JSON text for the innermost value that holds off:
// Unmarshal reports a literal of the wrong type at its end and an object
// or list at its first byte after the bracket, so the value is the one
// with start < off <= end. The text was valid JSON to Unmarshal (a
// Decoder's body may go on after it); the walk stops, finding nothing, at
// anything else.
type pathFinder struct {
	body  []byte
	off   int
	cur   []byte   // the path of the value being walked
	names []string // the keys in cur
	found bool
	path  string   // the path of the value that holds off
	keys  []string // the keys in path
}

// value walks the value at b[i] and returns the index after it, or -1
// when the walk is over: the value was found, or the text is not JSON.
func (f *pathFinder) value(i int) int {
	b, start := f.body, i
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '{':
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != '}' {
			end := stringEnd(b, i)
			if end < 0 {
				return -1
			}
			key := jsonString(b[i:end])
			if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
				return -1
			}
			mark := len(f.cur)
			if mark > 0 {
				f.cur = append(f.cur, '.')
			}
			f.cur = append(f.cur, key...)
			f.names = append(f.names, key)
			i = f.value(skipSpace(b, i+1))
			f.cur, f.names = f.cur[:mark], f.names[:len(f.names)-1]
			if i = f.next(i, '}'); i < 0 {
				return -1
			}
		}
	case '[':
		i = skipSpace(b, i+1)
		for n := 0; i < len(b) && b[i] != ']'; n++ {
			mark := len(f.cur)
			f.cur = strconv.AppendInt(append(f.cur, '['), int64(n), 10)
			f.cur = append(f.cur, ']')
			i = f.value(i)
			f.cur = f.cur[:mark]
			if i = f.next(i, ']'); i < 0 {
				return -1
			}
		}
	case '"':
		i = stringEnd(b, i) - 1
	default:
		for i < len(b) && strings.IndexByte(",]} \t\r\n", b[i]) < 0 {
			i++
		}
		i-- // the last byte of the literal
	}
	if i < 0 || i >= len(b) {
		return -1
	}
	i++                              // past the value
	if start < f.off && f.off <= i { // the innermost: its members were walked first
		f.found, f.path, f.keys = true, string(f.cur), append([]string(nil), f.names...)
		return -1
	}
	return i
}

// next skips what follows a member or an element: a comma and the space
// after it, or the closing bracket, which it leaves in place. It returns
// -1 for anything else, and for i -1 (the walk is over).
func (f *pathFinder) next(i int, closing byte) int {
	if i < 0 {
		return -1
	}
	i = skipSpace(f.body, i)
	switch {
	case i < len(f.body) && f.body[i] == ',':
		return skipSpace(f.body, i+1)
	case i < len(f.body) && f.body[i] == closing:
		return i
	}
	return -1
}

// stringEnd returns the index after the JSON string that starts at b[i],
// or -1.
func stringEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// jsonString is the text of a quoted JSON string as Unmarshal reads it.
func jsonString(quoted []byte) string {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1])
	}
	var s string
	_ = json.Unmarshal(quoted, &s)
	return s
}
