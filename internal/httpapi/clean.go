package httpapi

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/latchkey/latchkey/internal/apierr"
)

// Clean input: every identifier, token and address the server receives
// ends up in a database query, and PostgreSQL refuses text holding a NUL
// byte or invalid UTF-8 (SQLSTATE 22021), which would surface as a 500 for
// a request that is simply malformed. No legitimate client sends either,
// so the edge refuses them with invalid_request before any handler runs:
// WithCleanInput checks the path, the query, the credentials and form
// bodies; Decode checks JSON bodies.

// errDirty is the catalogue error for a request carrying either.
func errDirty(where string) error {
	return apierr.Invalid(where, "The request's "+where+" contains a NUL character or invalid UTF-8.")
}

// Clean reports whether s is valid UTF-8 without NUL characters: text a
// handler may hand to the database. Handlers that decode a value further
// (a percent-encoded client id, a base64 parameter) check the result.
func Clean(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

func clean(s string) bool { return Clean(s) }

// WithCleanInput refuses requests whose path, query, Basic credentials,
// Origin or form body hold a NUL character or invalid UTF-8. It runs after
// WithBodyLimit, which bounds the form body it reads.
func WithCleanInput() Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := checkClean(r); err != nil {
				writeEdgeError(w, r, err)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func checkClean(r *http.Request) error {
	if !clean(r.URL.Path) {
		return errDirty("path")
	}
	if err := checkEncoded(r.URL.RawQuery, "query"); err != nil {
		return err
	}
	if a := r.Header.Get("Authorization"); a != "" {
		if !clean(a) {
			return errDirty("credentials")
		}
		if u, p, ok := BasicAuth(r); ok && (!clean(u) || !clean(p)) {
			return errDirty("credentials")
		}
	}
	if o := r.Header.Get("Origin"); o != "" && !clean(o) {
		return errDirty("origin")
	}
	if isForm(r) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return apierr.New(apierr.RequestTooLarge)
			}
			return apierr.Wrap(apierr.InvalidRequest, err).WithMessage("The request body could not be read.")
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err := checkEncoded(string(body), "body"); err != nil {
			return err
		}
	}
	return nil
}

// checkEncoded checks a query or form body as the handlers will read it:
// pair by pair, as url.ParseQuery does. A pair that does not parse (a bad
// escape, a ';' separator) is refused too, not skipped: ParseQuery drops
// only that pair and still hands the others to the handler, so skipping
// the check on a parse error would let "?member_id=%00&junk=%zz" through.
func checkEncoded(s, where string) error {
	if s == "" {
		return nil
	}
	v, err := url.ParseQuery(s)
	if err != nil {
		return apierr.Invalid(where, "The request's "+where+" is not valid URL encoding.")
	}
	for k, vs := range v {
		if !clean(k) {
			return errDirty(where)
		}
		for _, x := range vs {
			if !clean(x) {
				return errDirty(where)
			}
		}
	}
	return nil
}

func isForm(r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return false
	}
	ct := r.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "application/json") { // what API calls send: no need to parse it
		return false
	}
	mt, _, _ := mime.ParseMediaType(ct)
	return mt == "application/x-www-form-urlencoded"
}

// CheckJSONText is cleanJSON for a handler that reads its body itself
// (SCIM, whose errors take the protocol's shape): the catalogue's refusal,
// whose message the handler may reword into its own shape.
func CheckJSONText(body []byte) error { return cleanJSON(body) }

// cleanJSON refuses a JSON body holding invalid UTF-8, or an escape that
// is no character: an unpaired UTF-16 surrogate (\ud800 alone, or a low
// one first), which encoding/json would quietly turn into U+FFFD, as it
// does invalid UTF-8, so that what is stored is not what was sent; or an
// escaped NUL (\u0000). A raw NUL is already a syntax error.
func cleanJSON(body []byte) error {
	if !utf8.Valid(body) {
		return errDirty("body")
	}
	for i := bytes.IndexByte(body, '\\'); i >= 0; {
		// Past the escape, so that "\\u0000" (a backslash, then the
		// text u0000) is not mistaken for a NUL.
		next := i + 2
		if u, ok := escapedUnit(body, i); ok {
			switch {
			case u == 0:
				return errDirty("body")
			case u >= 0xdc00 && u <= 0xdfff:
				return errSurrogate()
			case u >= 0xd800 && u <= 0xdbff:
				if low, ok := escapedUnit(body, i+6); !ok || low < 0xdc00 || low > 0xdfff {
					return errSurrogate()
				}
				next = i + 12 // the pair is one character
			default:
				next = i + 6
			}
		}
		if next >= len(body) {
			break
		}
		j := bytes.IndexByte(body[next:], '\\')
		if j < 0 {
			break
		}
		i = next + j
	}
	return nil
}

// errSurrogate refuses a body with an unpaired surrogate escape.
func errSurrogate() error {
	return apierr.Invalid("body", "The request's body contains an unpaired UTF-16 surrogate escape (\\ud800-\\udfff without its pair).")
}

// escapedUnit reads the \uXXXX escape at b[i], a UTF-16 code unit.
func escapedUnit(b []byte, i int) (rune, bool) {
	if i+5 >= len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, false
	}
	var u rune
	for _, c := range b[i+2 : i+6] {
		switch {
		case c >= '0' && c <= '9':
			u = u<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			u = u<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			u = u<<4 | rune(c-'A'+10)
		default:
			return 0, false // a syntax error for Unmarshal
		}
	}
	return u, true
}
