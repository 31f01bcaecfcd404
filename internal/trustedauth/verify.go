package trustedauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/compactjws"
	"github.com/latchkey/latchkey/internal/emailaddr"
)

// signingAlgs are the asymmetric algorithms a trusted token may use. HMAC
// is left out on purpose: a profile holds only public keys, and "none" is
// never accepted.
var signingAlgs = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA}

// clockSkew is how far the issuer's clock may be from ours.
const clockSkew = 30 * time.Second

// maxExpiryAhead bounds how far ahead a token's exp may lie. A spent token
// is remembered until it expires, so the bound is also how long any such
// record lives; ID tokens that issuers sign for an exchange live minutes
// to hours.
const maxExpiryAhead = 24 * time.Hour

// verified is a token that passed verify.
type verified struct {
	claims claims
	exp    time.Time
	// payload is the signed claims exactly as the issuer signed them. The
	// compact token is not: one signed payload has several encodings that
	// all verify (the ECDSA twin signature (r, n−s), base64 variants of the
	// payload). The JWS JSON serialization is refused outright (a JWT is
	// compact, RFC 7519 section 1).
	payload []byte
}

// claims are a verified token's payload.
type claims map[string]any

func badToken(msg string) error {
	return apierr.New(apierr.InvalidTrustedAuthToken).WithMessage("The trusted auth token " + msg)
}

// verify checks raw against the profile: signature by one of its keys,
// issuer, audience, expiry (required, at most maxExpiryAhead away) and
// not-before.
func (s *Service) verify(ctx context.Context, p *Profile, raw string) (*verified, error) {
	// Only the canonical spelling (see compactjws): spending is by the
	// signed claims whatever the spelling, and the text is then one token.
	obj, err := jose.ParseSignedCompact(raw, signingAlgs)
	if err == nil {
		err = compactjws.Check(raw)
	}
	if err != nil {
		return nil, apierr.Wrap(apierr.InvalidTrustedAuthToken, err).WithMessage(
			"The trusted auth token is not a JWT signed with an accepted algorithm.")
	}
	if len(obj.Signatures) != 1 {
		return nil, badToken("must carry exactly one signature.")
	}
	payload, err := s.checkSignature(ctx, p, obj)
	if err != nil {
		return nil, err
	}
	c, err := decodeClaims(payload)
	if err != nil {
		return nil, badToken("payload is not a JSON object.")
	}
	if iss, _ := c["iss"].(string); iss != p.Issuer {
		return nil, badToken("was issued by another issuer.")
	}
	if !audienceHas(c["aud"], p.Audience) {
		return nil, badToken("is meant for another audience.")
	}
	now := s.d.Clock.Now()
	exp, nbf, iat, err := c.dates()
	if err != nil {
		return nil, err
	}
	if exp == nil {
		return nil, badToken("has no expiry (exp).")
	}
	if now.After(exp.Add(clockSkew)) {
		return nil, badToken("has expired.")
	}
	if exp.After(now.Add(maxExpiryAhead + clockSkew)) {
		return nil, badToken("expires too far ahead: exp may be at most 24 hours from now.")
	}
	if nbf != nil && now.Add(clockSkew).Before(*nbf) {
		return nil, badToken("is not valid yet (nbf).")
	}
	if iat != nil && now.Add(clockSkew).Before(*iat) {
		return nil, badToken("was issued in the future (iat).")
	}
	return &verified{claims: c, exp: *exp, payload: payload}, nil
}

// checkSignature verifies obj with the profile's keys and returns the
// payload.
func (s *Service) checkSignature(ctx context.Context, p *Profile, obj *jose.JSONWebSignature) ([]byte, error) {
	switch p.PublicKeyType {
	case KeyTypeJWK:
		return s.checkJWKSignature(ctx, p, obj)
	case KeyTypePEM:
		var keys []any
		for _, f := range p.PEMFiles {
			k, err := parsePublicKey(f.PublicKey)
			var refused refusedKey
			if errors.As(err, &refused) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("trustedauth: profile %s: pem %s: %w", p.ProfileID, f.PEMFileID, err)
			}
			keys = append(keys, k)
		}
		if payload, ok := verifyWithAny(obj, keys); ok {
			return payload, nil
		}
		return nil, badSignature()
	}
	return nil, fmt.Errorf("trustedauth: profile %s: unknown key type %q", p.ProfileID, p.PublicKeyType)
}

// checkJWKSignature verifies obj with the profile's fetched keys. A token
// whose kid no held key carries makes keys refetch. One without a kid, or
// whose kid only the keys without an id could answer (matching), has no
// such sign of a rotation: when none of the held keys verifies it, the
// issuer may have rotated since they were fetched, so they are fetched
// again (within the refetch gap, as any refetch) and tried once more.
// Otherwise such tokens would be refused until the cached keys expire, up
// to an hour after the rotation.
func (s *Service) checkJWKSignature(ctx context.Context, p *Profile, obj *jose.JSONWebSignature) ([]byte, error) {
	kid := obj.Signatures[0].Header.KeyID
	keys, fresh, err := s.keys.keys(ctx, p, kid, false)
	if err != nil {
		return nil, err
	}
	if payload, ok := verifyWithAny(obj, jwks(keys)); ok {
		return payload, nil
	}
	if fresh || named(keys, kid) {
		// Just fetched, or the key the token names: a bad signature.
		return nil, badSignature()
	}
	if keys, fresh, err = s.keys.keys(ctx, p, kid, true); err != nil {
		return nil, err
	}
	if fresh {
		if payload, ok := verifyWithAny(obj, jwks(keys)); ok {
			return payload, nil
		}
	}
	return nil, badSignature()
}

func jwks(keys []jose.JSONWebKey) []any {
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = k
	}
	return out
}

// verifyWithAny returns obj's payload when one of keys verifies it. A
// JWK that declares its algorithm verifies only tokens of that algorithm
// (RFC 8725 section 3.1): go-jose would let an RSA key published for
// RS256 verify RS512 and PS256 tokens too, and an issuer that names one
// algorithm has not vouched for the others.
func verifyWithAny(obj *jose.JSONWebSignature, keys []any) ([]byte, bool) {
	alg := obj.Signatures[0].Header.Algorithm
	for _, k := range keys {
		if jwk, ok := k.(jose.JSONWebKey); ok && jwk.Algorithm != "" && jwk.Algorithm != alg {
			continue
		}
		if payload, err := obj.Verify(k); err == nil {
			return payload, true
		}
	}
	return nil, false
}

func badSignature() error { return badToken("signature does not verify with the profile's keys.") }

// audienceHas reads aud as a string or a list of strings.
func audienceHas(aud any, want string) bool {
	switch a := aud.(type) {
	case string:
		return a == want
	case []any:
		return slices.ContainsFunc(a, func(v any) bool { s, _ := v.(string); return s == want })
	}
	return false
}

// decodeClaims reads a JSON object of claims (a token's payload, a
// userinfo answer), keeping numbers as they were written.
func decodeClaims(b []byte) (claims, error) {
	var c claims
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&c); err != nil {
		return nil, err
	}
	if c == nil {
		return nil, errors.New("null is not a JSON object")
	}
	return c, nil
}

// emailVerified applies emailaddr.VerifiedClaim, the rule SSO uses too,
// to an attested token or a migrated session's userinfo.
func (c claims) emailVerified() bool { return emailaddr.VerifiedClaim(c) }

// maxNumericDate is the last second of year 9999: no token date lies
// further, and beyond int64 seconds a float converts to whatever the
// platform makes of it (the most negative int64 on amd64), which would
// put a not-before date in the distant past.
const maxNumericDate = 253402300799

// dates reads the exp, nbf and iat claims; nil is an absent claim. One
// present but unreadable (not a number, or out of range) refuses the
// token: a date the issuer wrote and we cannot read cannot be checked,
// and skipping it would accept a token its issuer said is not valid yet.
func (c claims) dates() (exp, nbf, iat *time.Time, err error) {
	out := [3]*time.Time{}
	for i, name := range []string{"exp", "nbf", "iat"} {
		v, present := c[name]
		if !present {
			continue
		}
		t, ok := numericDate(v)
		if !ok {
			return nil, nil, nil, badToken(fmt.Sprintf("has a %s claim that is not a date (NumericDate).", name))
		}
		out[i] = &t
	}
	return out[0], out[1], out[2], nil
}

// numericDate reads a NumericDate (RFC 7519 section 2): seconds since
// the epoch, possibly fractional.
func numericDate(v any) (time.Time, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return time.Time{}, false
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.Abs(f) > maxNumericDate {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), true
}

// text reads a claim as a string: strings as they are, numbers in their
// JSON form (a numeric user or token id), anything else as absent.
func (c claims) text(name string) string {
	if name == "" {
		return ""
	}
	switch v := c[name].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}
