package flowtoken

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/ids"
)

// S256 is the PKCE S256 transform (RFC 7636 §4.2): base64url(SHA-256(verifier)),
// unpadded.
func S256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// CheckPKCE answers a stored S256 challenge with a verifier, in constant
// time. No challenge means the flow did not use PKCE and any verifier is
// ignored; a challenge with a missing verifier is
// pkce_expected_code_verifier, with a wrong one pkce_mismatch (the
// vendor's types; IsPKCEFailure covers both).
// Only S256 exists here: "plain" would hand the secret to whoever sees
// the start URL. what names the secret in the message for a missing
// verifier ("flow", "link", "reset link").
func CheckPKCE(challenge, verifier, what string) error {
	if challenge == "" {
		return nil
	}
	if verifier == "" {
		return apierr.New(apierr.PKCEExpectedVerifier).WithMessage("This " + what + " needs the PKCE code verifier of the browser that started it.")
	}
	if !ids.Equal(S256(verifier), challenge) {
		if ids.Equal(verifier, challenge) {
			return apierr.Wrap(apierr.PKCEMismatch, ErrPlainVerifier)
		}
		return apierr.New(apierr.PKCEMismatch)
	}
	return nil
}

// ErrPlainVerifier is the hidden cause of CheckPKCE's pkce_mismatch when
// the verifier is the challenge itself: its client used the plain method,
// which a challenge cannot declare where code_challenge_method is not
// carried (the vendor's IdP widget and Node client drop it, so the
// identity provider reads its absence as S256). The public message stays
// the catalogue's; a caller that can explain it to the client does
// (idp's token endpoint).
var ErrPlainVerifier = errors.New("flowtoken: the PKCE verifier is the challenge itself (plain, not S256)")

// IsPKCEFailure reports whether err is CheckPKCE's refusal: a missing or
// a wrong verifier, which rate limits count as failed attempts.
func IsPKCEFailure(err error) bool {
	return apierr.Is(err, apierr.PKCEMismatch) || apierr.Is(err, apierr.PKCEExpectedVerifier)
}

// StartChallenge checks the PKCE challenge a browser flow starts with
// (OAuth, SSO, email magic links, password resets), sent in the request's
// field (pkce_code_challenge, or code_challenge for an organization's
// password reset): it is required when the project says so
// (pkce_required_for_*), and when given it must have the S256 shape.
func StartChallenge(field, challenge string, required bool) error {
	switch {
	case challenge == "" && required:
		return apierr.New(apierr.InvalidPKCECodeChallenge).WithDetails(map[string]any{"field": field})
	case challenge != "" && !ValidChallenge(challenge):
		return apierr.New(apierr.InvalidPKCECodeChallenge).WithMessage(field + " must be an S256 challenge (43 base64url characters).").
			WithDetails(map[string]any{"field": field})
	}
	return nil
}

// ValidChallenge reports whether s has the shape of an S256 challenge (43
// base64url characters), so a garbled one is refused at the start rather
// than failing mysteriously at the end.
func ValidChallenge(s string) bool {
	if len(s) != 43 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// ValidVerifier reports whether s is a PKCE code_verifier as RFC 7636 4.1
// defines it: 43 to 128 unreserved characters ([A-Za-z0-9-._~]).
func ValidVerifier(s string) bool {
	return len(s) >= 43 && len(s) <= 128 && ids.Unreserved(s)
}
