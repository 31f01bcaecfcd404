package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// Custom claims are the customer's own keys on a session
// (session_custom_claims on the backend's session check and logins): kept
// with the session, shown in member_session.custom_claims and carried as
// top-level claims of the session JWT, beside the registered claims and
// the two https://stytch.com/ claims.

// MaxClaimsBytes bounds a session's custom claims, as JSON.
const MaxClaimsBytes = 4096

// registeredClaims are the JWT's registered claims. This server sets
// them, so a custom claim of the same name is ignored: the backend API's
// reference for session_custom_claims says custom claims made with these
// reserved names "will be ignored", and the Node client's test relies on
// it (a call carrying iss still stores the rest).
var registeredClaims = []string{"iss", "sub", "aud", "exp", "nbf", "iat", "jti"}

// stytchClaimPrefix starts the claims the session JWT carries the session
// and organization in. A custom claim there is refused: a verifier
// reading https://stytch.com/session must only ever see the server's own.
const stytchClaimPrefix = "https://stytch.com/"

// Custom claim keys are compared with the registered names and the
// prefix in folded form (foldKey), not byte for byte: a Go verifier
// decoding the JWT into a struct matches keys as encoding/json does, by
// Unicode simple case folding with the last match winning, so "Sub",
// "EXP" or "https://ſtytch.com/session" (U+017F, a long s) written after
// the server's own claim would be read in its place.
var (
	foldedRegistered = func() map[string]bool {
		m := make(map[string]bool, len(registeredClaims))
		for _, name := range registeredClaims {
			m[foldKey(name)] = true
		}
		return m
	}()
	foldedStytchPrefix = foldKey(stytchClaimPrefix)
)

// foldKey is k folded as encoding/json folds a JSON object key to match
// it to a struct field: every rune mapped to the smallest rune of its
// simple case-folding orbit (so s, S and ſ are all S; k, K and the Kelvin
// sign K are all K). Two keys encoding/json would match have equal folds.
func foldKey(k string) string {
	var b strings.Builder
	b.Grow(len(k))
	for _, r := range k {
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

// foldRune is the smallest rune of r's simple case-folding orbit.
func foldRune(r rune) rune {
	for {
		next := unicode.SimpleFold(r)
		if next <= r {
			return next
		}
		r = next
	}
}

// checkClaimKey says whether a top-level custom claim key is kept. A key
// a verifier could read as a registered claim is dropped (ignored, as the
// API reference says); one it could read as a stytch claim is refused,
// since a caller sending it meant the server's session or organization.
// Nested keys are not claims of the JWT, so they are the customer's.
func checkClaimKey(k string) (keep bool, err error) {
	folded := foldKey(k)
	if foldedRegistered[folded] {
		return false, nil
	}
	if strings.HasPrefix(folded, foldedStytchPrefix) {
		return false, apierr.New(apierr.StytchClaimsInCustomClaims).
			WithMessage(fmt.Sprintf("Custom claim %q starts with https://stytch.com/, which names the server's own claims.", k))
	}
	return true, nil
}

// noClaims is the stored text of a session without custom claims.
const noClaims = "{}"

// MergeClaims returns current updated by update, the rule of
// session_custom_claims: a key with a null value is deleted, an object
// value merges into an object already there by the same rule, a key that
// folds (foldKey) to a registered claim (iss, sub, aud, exp, nbf, iat,
// jti) is ignored, one that folds to a key starting with
// https://stytch.com/ is refused (stytch_claims_in_custom_claims), and a
// result over MaxClaimsBytes of JSON is refused (custom_claims_too_large).
// current is not modified (a cached session's claims are shared), and on
// a refusal nothing is returned to store.
func MergeClaims(current, update map[string]any) (map[string]any, error) {
	out, _, err := mergeClaims(current, update)
	return out, err
}

// mergeClaims is MergeClaims, also returning the result's JSON text.
func mergeClaims(current, update map[string]any) (map[string]any, string, error) {
	out := maps.Clone(current)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range update {
		keep, err := checkClaimKey(k)
		if err != nil {
			return nil, "", err
		}
		if keep {
			mergeValue(out, k, v)
		}
	}
	text, err := encodeClaims(out)
	if err != nil {
		return nil, "", err
	}
	return out, text, nil
}

// mergeValue sets key k of out to v by the rule of session_custom_claims,
// at any depth: null deletes the key, an object merges key by key into an
// object already there (so {"e":{"a":null}} deletes only e.a), and any
// other value replaces. An object that replaces carries no nulls either:
// a null is never stored, so a key-presence check cannot read one as set.
// out is the caller's own map; a nested object of current is cloned
// before it is changed, since current is shared.
func mergeValue(out map[string]any, k string, v any) {
	switch v := v.(type) {
	case nil:
		delete(out, k)
	case map[string]any:
		base, _ := out[k].(map[string]any)
		merged := maps.Clone(base)
		if merged == nil {
			merged = make(map[string]any, len(v))
		}
		for nk, nv := range v {
			mergeValue(merged, nk, nv)
		}
		out[k] = merged
	default:
		out[k] = v
	}
}

// encodeClaims is the stored (and measured) form of claims. A value
// encoding/json cannot write (a NaN, a channel) comes only from a Go
// caller, never from a request's JSON; it is refused with its own type.
func encodeClaims(claims map[string]any) (string, error) {
	if len(claims) == 0 {
		return noClaims, nil
	}
	b, err := marshalClaims(claims)
	if err != nil {
		return "", apierr.Wrap(apierr.UnrepresentableClaims, err)
	}
	if len(b) > MaxClaimsBytes {
		return "", apierr.New(apierr.CustomClaimsTooLarge).WithMessage(
			fmt.Sprintf("The session's custom claims would be %d bytes of JSON, over the limit of %d; send a key with null to delete it.", len(b), MaxClaimsBytes))
	}
	return string(b), nil
}

// marshalClaims is claims as JSON without encoding/json's HTML escapes:
// json.Marshal writes <, > and & as six-byte \u003c sequences, which
// would count a client's 1,011 bytes of JSON as 6,011 against
// MaxClaimsBytes. The claims are only ever JSON (the column, the JWT
// payload, an API answer), never HTML, so the escapes protect nothing.
func marshalClaims(claims map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(claims); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// decodeClaims reads claims stored by encodeClaims, or sent by a client.
// Numbers stay json.Number, so an integer too large for a float64 is
// carried exactly as it was sent.
func decodeClaims(text []byte) (map[string]any, error) {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("session: claims: trailing data")
	}
	return m, nil
}

// storedClaims reads a session's custom_claims column (text), dropping
// any top-level key the merge rule would not store now (checkClaimKey):
// releases before keys were compared folded stored Sub, EXP or
// https://ſtytch.com/session, which a Go verifier decoding the JWT reads
// as the server's own, and which an update could not delete (its null
// for such a key is ignored). The text returned is the column's, or the
// claims encoded again when a key was dropped: the session JWT carries
// it as it is.
func storedClaims(text string) (map[string]any, string, error) {
	if text == noClaims {
		return map[string]any{}, text, nil
	}
	m, err := decodeClaims([]byte(text))
	if err != nil || m == nil {
		return nil, "", fmt.Errorf("session: stored custom claims: %v", err)
	}
	dropped := false
	for k := range m {
		if keep, err := checkClaimKey(k); !keep || err != nil {
			delete(m, k)
			dropped = true
		}
	}
	if !dropped {
		return m, text, nil
	}
	if text, err = encodeClaims(m); err != nil {
		return nil, "", fmt.Errorf("session: stored custom claims: %w", err)
	}
	return m, text, nil
}

// ClaimsField is the session_custom_claims field of a backend request
// that starts or updates a session. Login requests embed it and pass
// Claims(r) to the login, which stores it on the session it starts (not
// on an intermediate session: the MFA step that completes the login
// takes its own).
type ClaimsField struct {
	SessionCustomClaims json.RawMessage `json:"session_custom_claims"`
}

// Claims returns the claims the request sets: nil when it sets none, or
// when it came through the SDK face, whose browsers the API family never
// lets choose their own claims (a customer's backend trusts them). It is
// checked by the rule of MergeClaims, so a login refuses bad claims before
// spending its one-time secret.
func (f ClaimsField) Claims(r *http.Request) (map[string]any, error) {
	if len(f.SessionCustomClaims) == 0 || !project.CallerFrom(r.Context()).Backend {
		return nil, nil
	}
	if string(bytes.TrimSpace(f.SessionCustomClaims)) == "null" {
		return nil, nil
	}
	m, err := decodeClaims(f.SessionCustomClaims)
	if err != nil {
		return nil, apierr.Invalid("session_custom_claims", "session_custom_claims must be a JSON object.")
	}
	if len(m) == 0 {
		return nil, nil // {} changes nothing
	}
	if _, _, err := mergeClaims(nil, m); err != nil {
		return nil, err
	}
	return m, nil
}

// writeClaims merges claims into session ms's stored claims, records the
// access at now, and extends it to expires unless that is zero, in one
// transaction. The merge starts
// from the row as stored, under its lock, not from the cached session:
// two backends updating different keys at once both keep theirs.
func (s *Service) writeClaims(ctx context.Context, ms *MemberSession, claims map[string]any, expires, now time.Time) error {
	extend := !expires.IsZero()
	var merged map[string]any
	var text string
	err := s.db.Tx(ctx, func(q store.Querier) error {
		// A session gone meanwhile is the read below's to answer
		// (session_not_found, dropping this process's copies).
		if err := s.db.LockRow(ctx, q, "member_sessions", "member_session_id", ms.MemberSessionID); err != nil &&
			!errors.Is(err, store.ErrNotFound) {
			return err
		}
		// Live by the clock too: the session was checked from memory, which
		// on a replica may be up to a second behind a revocation or a
		// shorter expiry written on another, and an expired row must not
		// be revived by an extension (nor take claims and answer 200).
		var stored string
		err := q.QueryRowContext(ctx, `SELECT custom_claims FROM member_sessions WHERE member_session_id = $1
			AND revoked_at IS NULL AND expires_at > $2`, ms.MemberSessionID, store.Millis(now)).Scan(&stored)
		if err != nil {
			if err = store.MapError(err); errors.Is(err, store.ErrNotFound) {
				// Revoked or expired since it was read: this process's
				// copies are stale, dropped now (as an extension's refusal).
				s.feed.Invalidate(changefeed.Event{Table: "member_sessions", Scope: changefeed.Session, Key: ms.MemberSessionID})
				return apierr.Wrap(apierr.SessionNotFound, err)
			}
			return err
		}
		current, _, err := storedClaims(stored)
		if err != nil {
			return err
		}
		if merged, text, err = mergeClaims(current, claims); err != nil {
			return err
		}
		if extend {
			_, err = q.ExecContext(ctx, `UPDATE member_sessions SET custom_claims = $1, expires_at = $3,
				last_accessed_at = CASE WHEN last_accessed_at < $2 THEN $2 ELSE last_accessed_at END
				WHERE member_session_id = $4`, text, store.Millis(now), store.Millis(expires), ms.MemberSessionID)
		} else {
			// The check is an access too: the row is written anyway, so
			// its last access goes with the claims (never backwards), where
			// the toucher would have recorded it for a check without them.
			_, err = q.ExecContext(ctx, `UPDATE member_sessions SET custom_claims = $1,
				last_accessed_at = CASE WHEN last_accessed_at < $2 THEN $2 ELSE last_accessed_at END
				WHERE member_session_id = $3`, text, store.Millis(now), ms.MemberSessionID)
		}
		return err
	})
	if err != nil {
		if pub := (*apierr.Error)(nil); errors.As(err, &pub) {
			return err
		}
		return fmt.Errorf("session: custom claims: %w", err)
	}
	ms.CustomClaims, ms.claimsText = merged, text
	if extend {
		ms.ExpiresAt = expires
	}
	if now.After(ms.LastAccessedAt) {
		ms.LastAccessedAt = now
	}
	return nil
}
