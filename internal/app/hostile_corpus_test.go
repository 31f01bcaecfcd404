package app_test

import (
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/httpapi"
)

// The hostile-input corpus: requests generated from the route table that
// an attacker (or a broken client) could send. Each generator is a list of
// named variants, so a failure names exactly what was sent.

// hostileReq is one generated request.
type hostileReq struct {
	route  app.RouteInfo
	method string
	path   string // already escaped; sent byte for byte
	query  string
	header http.Header
	body   []byte
	label  string
}

// fixtures are the valid identifiers that let hostile values reach past
// authentication and lookups into the handlers' own parsing.
type fixtures struct {
	publicToken, projectID, secret string
	otherPublicToken, otherProject string
	otherSecret                    string
	org, member, email             string
	session, jwt                   string
	origin, page                   string
}

// hostileStrings are string values that break naive parsers, storage or
// templates: NUL bytes, invalid UTF-8 (as raw bytes, sent inside JSON
// strings), lone surrogates, huge and exotic unicode, traversal, and
// injection payloads.
var hostileStrings = []struct{ name, v string }{
	{"empty", ""},
	{"spaces", "   \t  "},
	{"nul", "a\x00b"},
	{"nul-only", "\x00"},
	{"invalid-utf8", "\xff\xfe\xfd"},
	{"overlong-utf8", "\xc0\xaf\xe0\x80\xaf"},
	{"lone-surrogate", "\xed\xa0\x80"},
	{"rtl-override", "admin\u202e@evil.test"},
	{"zero-width", "a\u200b\u200c\u200d\ufeffb"},
	{"combining", "e" + strings.Repeat("\u0301", 2000)},
	{"emoji", strings.Repeat("👩‍👩‍👧‍👦", 300)},
	{"huge", strings.Repeat("A", 20000)},
	{"traversal", "../../../../etc/passwd"},
	{"traversal-encoded", "..%2f..%2f..%2fetc%2fpasswd"},
	{"sql", "' OR '1'='1'; DROP TABLE members; --"},
	{"template", "{{.}}${7*7}<%= 7*7 %>"},
	{"html", "<script>alert(1)</script>"},
	{"crlf", "a@b.test\r\nBcc: victim@evil.test"},
	{"email-nul", "ada@acme.test\x00@evil.test"},
	{"long-email", strings.Repeat("a", 300) + "@" + strings.Repeat("b", 300) + ".test"},
	{"javascript-url", "javascript:alert(1)"},
	{"evil-url", "http://evil.test/login?x=1#y"},
	{"number-string", "1e400"},
	{"percent-nul", "%00"},
	// Opaque search cursors (base64url) whose ids hold a NUL and invalid
	// UTF-8, in the organization/member and the client search formats.
	{"cursor-nul", "YzF8MXwAeP8"},
	{"cursor-nul-clients", "MXwAeP8"},
}

// hostileValues are JSON values of every wrong type.
var hostileValues = []struct{ name, raw string }{
	{"null", `null`},
	{"true", `true`},
	{"zero", `0`},
	{"negative", `-1`},
	{"float", `3.14159`},
	{"huge-number", `1e400`},
	{"big-int", `123456789012345678901234567890`},
	{"empty-array", `[]`},
	{"array", `["a",1,null]`},
	{"empty-object", `{}`},
	{"operator-object", `{"$ne":null,"$gt":""}`},
	{"nested", `[[[[[[{"a":[{}]}]]]]]]`},
	{"escaped-nul", `"a\u0000b"`},
	{"escaped-surrogate", `"\ud800"`},
}

// malformedBodies are bodies that are not one JSON object.
func malformedBodies() []struct{ name, body string } {
	return []struct{ name, body string }{
		{"truncated", `{"email_address": "a`},
		{"open-brace", `{`},
		{"trailing-garbage", `{"a":1}xyz`},
		{"two-objects", `{}{}`},
		{"array", `[]`},
		{"string", `"hello"`},
		{"number", `42`},
		{"null", `null`},
		{"bool", `true`},
		{"single-quotes", `{'a':'b'}`},
		{"comments", `{/* c */"a":1}`},
		{"raw-nul", "{\"a\":\"x\x00y\"}"},
		{"raw-invalid-utf8", "{\"a\":\"\xff\xfe\"}"},
		{"bom", "\ufeff{}"},
		{"duplicate-keys", `{"organization_id":"a","organization_id":{"b":1}}`},
		{"deep-objects", strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000)},
		{"deep-arrays", strings.Repeat("[", 20000) + strings.Repeat("]", 20000)},
		{"deep-unclosed", strings.Repeat("[", 30000)},
		{"huge-key", `{"` + strings.Repeat("k", 30000) + `":1}`},
		{"many-keys", manyKeys(3000)},
		{"over-limit", `{"a":"` + strings.Repeat("x", 70<<10) + `"}`},
		{"binary", "\x00\x01\x02\x03\xff\xfe"},
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `":` + `"v"`)
	}
	b.WriteString("}")
	return b.String()
}

// requestFields lists every JSON field name the server's Go types declare
// (request and answer types alike, read from the source), so a kitchen-
// sink body sets every field any handler might decode.
func requestFields() ([]string, error) {
	tag := regexp.MustCompile(`json:"([a-z][a-z0-9_]*)`)
	seen := map[string]bool{}
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := readFile(p)
		if err != nil {
			return err
		}
		for _, m := range tag.FindAllStringSubmatch(src, -1) {
			seen[m[1]] = true
		}
		return nil
	})
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out, err
}

// baseline returns valid values for the fields that identify things, so a
// body with one hostile field gets past the lookups that come first.
func (f *fixtures) baseline() map[string]any {
	return map[string]any{
		"organization_id":             f.org,
		"member_id":                   f.member,
		"email_address":               f.email,
		"session_token":               f.session,
		"session_jwt":                 f.jwt,
		"organization_slug":           "acme",
		"organization_name":           "Acme",
		"password":                    "correct horse battery staple 42!",
		"login_redirect_url":          f.page,
		"signup_redirect_url":         f.page,
		"reset_password_redirect_url": f.page,
		"invite_redirect_url":         f.page,
		"discovery_redirect_url":      f.page,
		"code":                        "123456",
		"phone_number":                "+14155550100",
		"mfa_phone_number":            "+14155550100",
		"session_duration_minutes":    60,
		"limit":                       10,
		"pkce_code_verifier":          strings.Repeat("v", 43),
		"code_challenge":              strings.Repeat("c", 43),
		"public_token":                f.publicToken,
		"project_id":                  f.projectID,
		"client_id":                   "connected-app-test-x",
		"redirect_uri":                f.page,
		"response_type":               "code",
		"scope":                       "openid email",
		"name":                        "Ada",
		"cursor":                      "",
	}
}

// kitchenSink sets every known field to the same raw JSON value.
func kitchenSink(fields []string, raw string) []byte {
	var b strings.Builder
	b.WriteString("{")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + f + `":` + raw)
	}
	b.WriteString("}")
	return []byte(b.String())
}

// withField is the baseline with one field replaced by a raw JSON value.
func withField(base map[string]any, field, raw string) []byte {
	m := map[string]json.RawMessage{}
	for k, v := range base {
		m[k], _ = json.Marshal(v)
	}
	m[field] = json.RawMessage(raw)
	// encoding/json would reject invalid UTF-8 inside RawMessage on
	// re-encode, so write the object by hand.
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + k + `":` + string(m[k]))
	}
	b.WriteString("}")
	return []byte(b.String())
}

// jsonString quotes s as a JSON string but keeps invalid UTF-8 bytes and
// NULs as they are (escaped NUL as \u0000), which encoding/json would
// replace or refuse.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[c>>4])
			b.WriteByte("0123456789abcdef"[c&15])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// credential is one way a request may (fail to) authenticate.
type credential struct {
	name  string
	apply func(h http.Header)
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

func setAuth(v string) func(h http.Header) { return func(h http.Header) { h.Set("Authorization", v) } }

// forgedJWT is a token with alg "none" claiming the fixture member.
func (f *fixtures) forgedJWT() string {
	enc := base64.RawURLEncoding.EncodeToString
	claims, _ := json.Marshal(map[string]any{"sub": f.member, "iss": "stytch.com/" + f.projectID,
		"aud": []string{f.projectID}, "exp": 4102444800,
		"https://stytch.com/session": map[string]any{"id": "session-test-forged"}})
	return enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc(claims) + "."
}

// credentials lists the credential variants of a face. The first is the
// deepest valid one (session on the SDK face, the secret on the backend).
func (f *fixtures) credentials(face httpapi.Face, raw bool) []credential {
	origin := func(o string) func(h http.Header) { return func(h http.Header) { h.Set("Origin", o) } }
	both := func(a, b func(http.Header)) func(http.Header) {
		return func(h http.Header) { a(h); b(h) }
	}
	garbage := []credential{
		{"none", func(http.Header) {}},
		{"basic-not-base64", setAuth("Basic !!!not*base64!!!")},
		{"basic-no-colon", setAuth("Basic " + base64.StdEncoding.EncodeToString([]byte("nocolon")))},
		{"basic-nul", setAuth(basic(f.publicToken+"\x00", "x\x00"))},
		{"basic-invalid-utf8", setAuth(basic("\xff\xfe", "\xc0\xaf"))},
		// client_secret_basic form-decodes its parts (RFC 6749 2.3.1).
		{"basic-percent-encoded", setAuth(basic("a%00b%ff", "%00%c0%af"))},
		{"basic-huge", setAuth(basic(strings.Repeat("p", 6000), strings.Repeat("s", 6000)))},
		{"bearer-forged-jwt", setAuth("Bearer " + f.forgedJWT())},
		{"digest", setAuth(`Digest username="x", realm="y"`)},
	}
	switch {
	case raw || face == httpapi.Public:
		return append([]credential{
			{"none-cookie", func(h http.Header) {
				h.Set("Cookie", "stytch_session="+f.session+"; stytch_session_jwt="+f.forgedJWT())
			}},
			{"backend-secret", setAuth(basic(f.projectID, f.secret))},
		}, garbage...)
	case face == httpapi.SDK:
		return append([]credential{
			{"sdk-session", both(setAuth(basic(f.publicToken, f.session)), origin(f.origin))},
			{"sdk-public", both(setAuth(basic(f.publicToken, f.publicToken)), origin(f.origin))},
			{"sdk-jwt", both(setAuth(basic(f.publicToken, f.jwt)), origin(f.origin))},
			{"sdk-forged-jwt", both(setAuth(basic(f.publicToken, f.forgedJWT())), origin(f.origin))},
			{"sdk-forged-session", both(setAuth(basic(f.publicToken, "session-token-test-"+strings.Repeat("0", 44))), origin(f.origin))},
			{"sdk-no-origin", setAuth(basic(f.publicToken, f.session))},
			{"sdk-evil-origin", both(setAuth(basic(f.publicToken, f.session)), origin("http://evil.test"))},
			{"sdk-null-origin", both(setAuth(basic(f.publicToken, f.session)), origin("null"))},
			{"sdk-other-project", both(setAuth(basic(f.otherPublicToken, f.session)), origin(f.origin))},
			{"sdk-secret-as-public", both(setAuth(basic(f.secret, f.secret)), origin(f.origin))},
		}, garbage...)
	default:
		return append([]credential{
			{"backend-secret", setAuth(basic(f.projectID, f.secret))},
			{"backend-wrong-secret", setAuth(basic(f.projectID, f.otherSecret))},
			{"backend-other-project", setAuth(basic(f.otherProject, f.secret))},
			{"backend-public-token", setAuth(basic(f.projectID, f.publicToken))},
			{"backend-session", setAuth(basic(f.projectID, f.session))},
			{"backend-empty-secret", setAuth(basic(f.projectID, ""))},
		}, garbage...)
	}
}

// pathValue is the valid value of a path parameter.
func (f *fixtures) pathValue(name string) string {
	name = strings.TrimSuffix(name, "...")
	switch name {
	case "organization_id":
		return f.org
	case "member_id", "a":
		return f.member
	case "b":
		return "totp"
	case "project_id":
		return f.projectID
	case "public_token":
		return f.publicToken
	case "provider":
		return "google"
	case "file":
		return "latchkey.js"
	case "$":
		return ""
	default:
		return name + "-test-00000000-0000-4000-8000-000000000000"
	}
}

// hostilePathValues replace one path parameter; they are escaped as sent.
var hostilePathValues = []struct{ name, v string }{
	{"dotdot", ".."},
	{"traversal-encoded", "..%2f..%2f..%2fetc%2fpasswd"},
	{"double-encoded", "%252e%252e%252fetc"},
	{"nul", "abc%00def"},
	{"invalid-utf8", "%ff%fe%c0%af"},
	{"long", strings.Repeat("x", 8000)},
	{"unicode", "organization-test-%E2%98%83%E2%80%AE"},
	{"sql", "%27%20OR%201%3D1--"},
	{"empty-ish", "%20"},
	{"backslash", "..%5c..%5cwindows"},
}

// hostileQueries are query strings appended to a request.
var hostileQueries = []struct{ name, q string }{
	{"nul", "member_id=%00&email_address=%00&limit=%00&to=%00"},
	{"invalid-utf8", "member_id=%ff&organization_id=%fe&to=%c0%af&limit=%ff"},
	// A pair that does not parse must not hide the others from the check.
	{"nul-beside-bad-escape", "member_id=%00&email_address=%00&to=%00&junk=%zz"},
	{"types", "limit=-1&limit=99999999999999999999&cursor=%7B%7D&member_id[]=x&redirect_uri=javascript:alert(1)"},
	{"huge", "x=" + strings.Repeat("y", 6000)},
	{"oauth", "client_id=..%2f&redirect_uri=http%3A%2F%2Fevil.test&response_type=%00&state=%ff&scope=openid%00&code_challenge=x&token=" + strings.Repeat("t", 300)},
}

// contentTypes are Content-Type headers sent with the kitchen-sink body.
var contentTypes = []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
	"application/json; charset=utf-16", "application/xml", "application/jsonx"}

// formBodies are bodies for the form-encoded protocol endpoints.
func (f *fixtures) formBodies() []struct{ name, body string } {
	return []struct{ name, body string }{
		{"form-nul", "grant_type=authorization_code&code=%00&client_id=%00&client_secret=%00&redirect_uri=%00&token=%00"},
		{"form-nul-beside-bad-escape", "grant_type=authorization_code&code=%00&client_id=%00&token=%00&junk=%zz"},
		{"form-invalid-utf8", "grant_type=%ff&code=%ff%fe&client_id=%c0%af&token=%ff&SAMLResponse=%ff&RelayState=%ff"},
		{"form-refresh", "grant_type=refresh_token&refresh_token=" + f.session + "&client_id=x&client_secret=y"},
		{"form-client-credentials", "grant_type=client_credentials&client_id=" + url.QueryEscape(f.projectID) + "&client_secret=" + url.QueryEscape(f.secret) + "&scope=%00"},
		{"form-saml", "SAMLResponse=" + base64.StdEncoding.EncodeToString([]byte("<samlp:Response><x>\x00</x></samlp:Response>")) + "&RelayState=..%2f..%2f"},
		{"form-saml-garbage", "SAMLResponse=%%%%not-base64&RelayState="},
		{"form-repeated", "grant_type=a&grant_type=b&token=1&token=2&token_type_hint=%00"},
	}
}

// pick returns a random element.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }
