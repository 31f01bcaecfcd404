// Package endpointerr words the failures of an OAuth or OIDC provider's
// token and userinfo endpoints for errors that end up in the log (the
// cause of a refused callback, of a failed refresh): without what the
// provider was sent or issued, which its answer may quote. The social
// logins (oauth/providers) and enterprise OIDC SSO (sso) share it.
package endpointerr

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/oauth2"
)

// maxDescription caps the provider's error_description in an error.
const maxDescription = 200

// credentialRE is a run that looks like a credential: 20 or more
// characters of the alphabets tokens, codes and JWTs are written in.
var credentialRE = regexp.MustCompile(`[A-Za-z0-9._~+/=-]{20,}`)

// Token words a token endpoint's failure (sent: the code, verifier,
// refresh token and client secret the request carried).
// x/oauth2's own *RetrieveError prints the answer's whole body when it is
// not OAuth's error JSON, and a provider's error_description may quote
// what it was sent (the code, the refresh token, the verifier): so only
// the status, the OAuth error code and the description with sent removed
// and every credential-looking run redacted are kept, and of a body that
// is not OAuth's error its content type and length. Other errors (the
// connection's) lose the URL net/http names (WithoutURL) and are
// scrubbed too.
func Token(err error, sent ...string) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return errors.New(Scrub(WithoutURL(err).Error(), sent...))
	}
	status := "no answer"
	if re.Response != nil {
		status = re.Response.Status
	}
	if re.ErrorCode == "" {
		ct := "no content type"
		if re.Response != nil && re.Response.Header.Get("Content-Type") != "" {
			ct, _, _ = strings.Cut(re.Response.Header.Get("Content-Type"), ";")
		}
		return fmt.Errorf("token endpoint answered %s (%s, %d bytes)", status, Scrub(ct, sent...), len(re.Body))
	}
	msg := fmt.Sprintf("token endpoint answered %s: error %q", status, Scrub(re.ErrorCode, sent...))
	if d := Scrub(re.ErrorDescription, sent...); d != "" {
		msg += fmt.Sprintf(" (%q)", d)
	}
	return errors.New(msg)
}

// Scrub is s without the values of sent, credential-looking runs
// redacted, capped at maxDescription bytes: for a provider's own text
// (go-oidc's userinfo error quotes the answer's body).
func Scrub(s string, sent ...string) string {
	for _, v := range sent {
		if v != "" {
			s = strings.ReplaceAll(s, v, "[redacted]")
		}
	}
	s = credentialRE.ReplaceAllStringFunc(s, func(run string) string {
		if strings.ContainsAny(run, "0123456789") && strings.ContainsAny(run, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			return "[redacted]"
		}
		return run
	})
	s = strings.ToValidUTF8(strings.TrimSpace(s), "?")
	if len(s) > maxDescription {
		s = strings.ToValidUTF8(s[:maxDescription], "") + "..."
	}
	return s
}

// WithoutURL is err without the *url.Error layers net/http wraps a
// request's failure in, which print the URL (and its query) whole.
func WithoutURL(err error) error {
	var ue *url.Error
	for errors.As(err, &ue) {
		if ue.Err == nil {
			return errors.New(ue.Op + " failed")
		}
		err = ue.Err
	}
	return err
}
