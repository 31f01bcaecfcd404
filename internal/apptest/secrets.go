package apptest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// The house rule is that secrets never reach a log. Every Env records the
// secret values that pass through it (request and response bodies, query
// strings, credentials in headers, cookies the server sets, the captured
// mail and SMS) and, when its test ends, fails the test if any of them
// occurs in the server's log (leakcheck.go). Every server test so proves
// the rule for the paths it drives, at debug level.

// minSecretLen is the shortest value checked: a shorter one (a flag, a
// 4-digit year) would match log text by chance.
const minSecretLen = 6

// secretFields are field, parameter and header names whose value is a
// credential, besides the suffix rules of secretField.
var secretFields = map[string]bool{
	"token": true, "code": true, "codes": true, "secret": true, "otp": true,
	"verifier": true, "assertion": true, "samlresponse": true, "jwt": true,
	"recovery_code": true, "recovery_codes": true, "backup_codes": true,
	"authorization_code": true, "totp_code": true, "hash": true, // an imported password hash
	"x-stytch-member-session": true, "x-stytch-member-sessionjwt": true,
}

// notSecretFields end like a credential but hold public values.
var notSecretFields = map[string]bool{
	"public_token": true, "status_code": true, "error_code": true, "http_status_code": true,
	"country_code": true, "qr_code": true, "pkce_code_challenge": true, "code_challenge": true,
	"code_challenge_method": true,
}

// secretField reports whether a field named name holds a credential.
func secretField(name string) bool {
	n := strings.ToLower(name)
	switch {
	case notSecretFields[n]:
		return false
	case secretFields[n]:
		return true
	}
	for _, suffix := range []string{"_token", "_jwt", "_secret", "password", "_verifier", "_code",
		"_codes", "_otp", "_assertion", "private_key", "private_keys"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

// secretSet is the secrets one Env (and its Browser copies) has seen: value
// to the field it came in.
type secretSet struct {
	mu       sync.Mutex
	public   map[string]bool // values known public (the project's public token)
	seen     map[string]string
	projects []string // whose audit logs the check reads too
}

func newSecretSet() *secretSet {
	return &secretSet{public: map[string]bool{}, seen: map[string]string{}}
}

// add records value as the secret of field.
func (s *secretSet) add(field, value string) {
	value = strings.TrimSpace(value)
	if len(value) < minSecretLen {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.public[value] {
		return
	}
	if _, ok := s.seen[value]; !ok {
		s.seen[value] = field
	}
	// A PEM key reaches a log, if at all, a line at a time.
	if strings.Contains(value, "\n") {
		for line := range strings.SplitSeq(value, "\n") {
			if line = strings.TrimSpace(line); len(line) >= 20 && !strings.HasPrefix(line, "-----") {
				if _, ok := s.seen[line]; !ok {
					s.seen[line] = field
				}
			}
		}
	}
}

// addProject names a project whose audit log the check reads.
func (s *secretSet) addProject(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.projects = append(s.projects, id)
}

func (s *secretSet) projectIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.projects...)
}

// markPublic keeps value out of the set: a public value that a credential
// field may carry (the public token the SDK sends as its Basic password).
func (s *secretSet) markPublic(value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.public[value] = true
	delete(s.seen, value)
}

// merge adds other's secrets and public values to s.
func (s *secretSet) merge(other *secretSet) {
	seen, public, projects := other.snapshot(), other.publicValues(), other.projectIDs()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.projects = append(s.projects, projects...)
	for v := range public {
		s.public[v] = true
		delete(s.seen, v)
	}
	for v, field := range seen {
		if _, ok := s.seen[v]; !ok && !s.public[v] {
			s.seen[v] = field
		}
	}
}

func (s *secretSet) publicValues() map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]bool, len(s.public))
	for k := range s.public {
		out[k] = true
	}
	return out
}

// snapshot copies the set for a scan.
func (s *secretSet) snapshot() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.seen))
	for k, v := range s.seen {
		out[k] = v
	}
	return out
}

// addJSON records the secret fields of a JSON document, nested at any
// depth; raw that is not JSON is tried as a form.
func (s *secretSet) addJSON(raw []byte) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		if form, err := url.ParseQuery(string(raw)); err == nil {
			s.addForm(form)
		}
		return
	}
	s.walk("", v, false)
}

// walk records the strings of a secret field (one, or a list: recovery
// codes) and looks into every object, whose fields are judged by their
// own names: a list of private keys' public metadata (private_key_id,
// created_at) is not secret, the keys in it are.
func (s *secretSet) walk(field string, v any, secret bool) {
	switch v := v.(type) {
	case string:
		if secret {
			s.add(field, v)
		}
	case []any:
		for _, e := range v {
			s.walk(field, e, secret)
		}
	case map[string]any:
		for k, e := range v {
			s.walk(k, e, secretField(k))
		}
	}
}

// addForm records the secret parameters of a form or query string.
func (s *secretSet) addForm(form url.Values) {
	for k, vs := range form {
		if secretField(k) {
			for _, v := range vs {
				s.add(k, v)
			}
		}
	}
}

// addURL records the secret parameters of a URL's query and fragment (a
// redirect carries its token or code there).
func (s *secretSet) addURL(raw string) {
	u, err := url.Parse(raw)
	if err != nil {
		return
	}
	s.addForm(u.Query())
	if frag, err := url.ParseQuery(u.Fragment); err == nil {
		s.addForm(frag)
	}
}

// addHeader records the credentials of a request's or answer's header: a
// bearer token, a Basic password, the member session headers, the cookies
// the server sets, a redirect's token.
func (s *secretSet) addHeader(h http.Header) {
	for k, vs := range h {
		for _, v := range vs {
			switch {
			case strings.EqualFold(k, "Authorization"):
				s.addAuthorization(v)
			case secretField(k):
				s.add(k, v)
			case strings.EqualFold(k, "Location"):
				s.addURL(v)
			}
		}
	}
	for _, c := range (&http.Response{Header: h}).Cookies() {
		s.add("cookie "+c.Name, c.Value)
	}
}

// addAuthorization records the credential of an Authorization header.
func (s *secretSet) addAuthorization(v string) {
	scheme, cred, _ := strings.Cut(strings.TrimSpace(v), " ")
	switch strings.ToLower(scheme) {
	case "bearer":
		s.add("bearer token", cred)
	case "basic":
		if dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred)); err == nil {
			if _, pass, ok := strings.Cut(string(dec), ":"); ok {
				s.add("basic password", pass)
			}
		}
	}
}
