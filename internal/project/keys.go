package project

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/rsasign"
	"github.com/latchkey/latchkey/internal/store"
)

// SigningKeyColumn is where signing private keys are kept, sealed at rest.
var SigningKeyColumn = atrest.Column{Table: "signing_keys", Key: "kid", Column: "private_key_pem"}

// ErrLastSigningKey refuses to retire a project's only signing key: the
// project could no longer sign sessions.
var ErrLastSigningKey = errors.New("project: cannot retire the only signing key; rotate first")

// SigningKeyLead is how long a rotated key is published before it signs.
// A JWT is only as good as its key's reach: one signed with a key a
// verifier does not know yet is refused, and users are logged out. Other
// replicas learn of a new key through the change feed within a second
// (changefeed.MaxLag, 500 ms, is its usual worst); the JWT checks already
// allow 5 s of clock skew between the machine that ran `keys rotate` and
// the replicas; and the SDKs' local verifier (jose's createRemoteJWKSet,
// api-reference 5.3) fetches the JWKS again for an unknown kid at most
// once per 30 s, so a backend that fetched it just before the rotation
// finds the new key only after that cooldown. A minute covers all three
// with room to spare, and costs nothing but the wait: rotation is
// planned, and the emergency (a leaked key) is handled by retiring the
// old key, which makes the pending key sign at once (RetireSigningKey).
const SigningKeyLead = time.Minute

// SigningKey is an RS256 key a project signs session JWTs with.
type SigningKey struct {
	KID     string
	Private *rsa.PrivateKey
	// Signer signs with Private, on rsasign's fast path where the CPU
	// allows; nil means Private signs through crypto/rsa.
	Signer crypto.Signer
	// ActivatesAt is when the key starts signing; before that it only
	// verifies (see SigningKeyLead). The zero time is "always".
	ActivatesAt time.Time
}

// Signer returns the key that signs at now among keys, newest first (as
// SigningKeys returns them): the newest already active. Selecting here,
// at each use, rather than once when keys are loaded, makes every cached
// list switch to a rotated key at its activation, with no change event
// and no cache expiry needed. If none is active yet (the machine that
// created the project or retired the signing key has a clock ahead of
// this one's), it is the one activating first. keys must not be empty.
func Signer(keys []SigningKey, now time.Time) SigningKey {
	return keys[signingIndex(len(keys), func(i int) time.Time { return keys[i].ActivatesAt }, now)]
}

// signingIndex is Signer's rule over n keys, newest first, whose
// activations are activates(i); n must be positive.
func signingIndex(n int, activates func(i int) time.Time, now time.Time) int {
	first := 0
	for i := range n {
		at := activates(i)
		if !at.After(now) {
			return i
		}
		if at.Before(activates(first)) {
			first = i
		}
	}
	return first
}

// KeyInfo describes a published key without its private part.
type KeyInfo struct {
	KID         string `json:"kid"`
	CreatedAt   int64  `json:"created_at"`   // Unix milliseconds
	ActivatesAt int64  `json:"activates_at"` // Unix milliseconds; when it starts signing (0: always)
	Signing     bool   `json:"signing"`      // the key that signs new JWTs now (Signer)
}

// Also is work a caller joins to a key or secret change, run in the
// change's transaction with the id of the key or secret changed: the CLI
// files the change's audit event there, so the change and its record
// commit together or not at all (a rotation that deleted every old secret
// must not commit without the new one reaching its caller).
type Also func(q store.Querier, id string) error

func runAlso(q store.Querier, id string, also []Also) error {
	for _, f := range also {
		if err := f(q, id); err != nil {
			return err
		}
	}
	return nil
}

// KeySource makes the RSA private keys new signing keys (and SAML
// service-provider keys, sso.Deps.RSAKeys) are made from. The nil source,
// production's, generates a fresh RSA-2048 key each time; tests pass a
// pre-generated pool (internal/apptest/testkeys) because generating is
// about 100 ms of CPU a key, and every test project needs one.
type KeySource func() (*rsa.PrivateKey, error)

// Generate returns a new key from f, or a fresh RSA-2048 key when f is nil.
func (f KeySource) Generate() (*rsa.PrivateKey, error) {
	if f == nil {
		return rsa.GenerateKey(rand.Reader, 2048)
	}
	return f()
}

// UseKeySource makes the store take new signing keys from f (nil: fresh
// RSA-2048 keys). Call it before the store is used.
func (s *Store) UseKeySource(f KeySource) { s.newKey = f }

// newSigningKey stores a new key for the project, created at now and
// signing from activatesAt.
func (s *Store) newSigningKey(ctx context.Context, q store.Querier, projectID string, env ids.Env, now, activatesAt int64) (string, error) {
	key, err := s.newKey.Generate()
	if err != nil {
		return "", fmt.Errorf("generate signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", fmt.Errorf("encode signing key: %w", err)
	}
	kid := ids.New("jwk", env)
	sealed, err := SigningKeyColumn.SealStored(s.box, kid, string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))
	if err != nil {
		return "", err
	}
	_, err = q.ExecContext(ctx, `INSERT INTO signing_keys (kid, project_id, private_key_pem, active, created_at, activates_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, kid, projectID, sealed, true, now, activatesAt)
	if err != nil {
		return "", fmt.Errorf("insert signing key: %w", err)
	}
	return kid, nil
}

// RotateSigningKey adds a new key, published at once and signing from
// SigningKeyLead later, and keeps the old ones published so JWTs they
// signed still verify until they expire; RetireSigningKey removes one
// afterwards. It describes the new key.
func (s *Store) RotateSigningKey(ctx context.Context, projectID string, also ...Also) (KeyInfo, error) {
	p, err := s.ByID(ctx, projectID)
	if err != nil {
		return KeyInfo{}, err
	}
	now := s.clock.Now()
	info := KeyInfo{CreatedAt: store.Millis(now), ActivatesAt: store.Millis(now.Add(SigningKeyLead))}
	err = s.db.Tx(ctx, func(q store.Querier) error {
		if info.KID, err = s.newSigningKey(ctx, q, p.ID, p.Env, info.CreatedAt, info.ActivatesAt); err != nil {
			return err
		}
		return runAlso(q, info.KID, also)
	})
	if err != nil {
		return KeyInfo{}, err
	}
	return info, nil
}

// RetireSigningKey deletes one of the project's keys, private part
// included, so it leaves the JWKS and JWTs it signed stop verifying. The
// last key cannot be retired. Retiring the key that signs while the keys
// left are all still pending (rotated less than SigningKeyLead ago)
// activates them now, and the newest signs: that is the response to a
// leaked key (rotate, then retire it), which must not leave the leaked
// key signing for another minute, nor the project with no key to sign
// with. The pending key was published at its rotation, so replicas that
// have seen that rotation already verify what it signs.
func (s *Store) RetireSigningKey(ctx context.Context, projectID, kid string, also ...Also) error {
	return s.db.Tx(ctx, func(q store.Querier) error {
		// Two retires at once (of both keys, say: rotate, then retire
		// the old one while another run retires the new) would each count
		// two and delete one, leaving none: the project's row orders them.
		if err := s.db.LockRow(ctx, q, "projects", "project_id", projectID); err != nil {
			return fmt.Errorf("project: retire key: %w", err)
		}
		var n int
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM signing_keys WHERE project_id = $1`, projectID).Scan(&n); err != nil {
			return fmt.Errorf("project: retire key: %w", err)
		}
		res, err := q.ExecContext(ctx, `DELETE FROM signing_keys WHERE project_id = $1 AND kid = $2`, projectID, kid)
		if err != nil {
			return fmt.Errorf("project: retire key: %w", err)
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return notFound(fmt.Sprintf("key %s is not one of the project's signing keys", kid))
		}
		if n <= 1 {
			return ErrLastSigningKey // rolls the delete back
		}
		now := store.Millis(s.clock.Now())
		var signing int
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM signing_keys WHERE project_id = $1 AND activates_at <= $2`,
			projectID, now).Scan(&signing); err != nil {
			return fmt.Errorf("project: retire key: %w", err)
		}
		if signing == 0 {
			if _, err := q.ExecContext(ctx, `UPDATE signing_keys SET activates_at = $1 WHERE project_id = $2`, now, projectID); err != nil {
				return fmt.Errorf("project: retire key: activate the pending keys: %w", err)
			}
		}
		return runAlso(q, kid, also)
	})
}

// newestFirst orders a project's keys as Signer expects them: by
// activation, then creation. A rotated key activates after every key
// before it, so this is creation order, except that a rotation made in
// the millisecond a project was created still comes before its first key
// (which activated at once), and keys a retirement activated together
// keep their creation order.
const newestFirst = `activates_at DESC, created_at DESC, kid`

// ListSigningKeys describes the project's published keys, newest first.
func (s *Store) ListSigningKeys(ctx context.Context, projectID string) ([]KeyInfo, error) {
	rows, err := s.db.Read().QueryContext(ctx, `SELECT kid, created_at, activates_at FROM signing_keys
		WHERE project_id = $1 AND active = $2 ORDER BY `+newestFirst, projectID, true)
	if err != nil {
		return nil, fmt.Errorf("project: list keys: %w", err)
	}
	defer rows.Close()
	var out []KeyInfo
	for rows.Next() {
		var k KeyInfo
		if err := rows.Scan(&k.KID, &k.CreatedAt, &k.ActivatesAt); err != nil {
			return nil, fmt.Errorf("project: list keys: %w", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("project: list keys: %w", err)
	}
	if len(out) > 0 {
		out[signingIndex(len(out), func(i int) time.Time { return store.Time(out[i].ActivatesAt) }, s.clock.Now())].Signing = true
	}
	return out, nil
}

// parsedKey is a signing key as parsed from its stored text.
type parsedKey struct {
	stored string
	key    SigningKey
}

// SigningKeys returns the project's published keys, newest first: all
// verify and appear in the JWKS, and Signer picks the one that signs.
func (s *Store) SigningKeys(ctx context.Context, projectID string) ([]SigningKey, error) {
	rows, err := s.db.Read().QueryContext(ctx, `SELECT kid, private_key_pem, activates_at FROM signing_keys
		WHERE project_id = $1 AND active = $2 ORDER BY `+newestFirst, projectID, true)
	if err != nil {
		return nil, fmt.Errorf("project: signing keys: %w", err)
	}
	defer rows.Close()
	var out []SigningKey
	for rows.Next() {
		var kid, stored string
		var activates int64
		if err := rows.Scan(&kid, &stored, &activates); err != nil {
			return nil, fmt.Errorf("project: scan signing key: %w", err)
		}
		// A key never changes under its kid, so one parsed before is reused
		// while its stored text is the same (a re-seal at rest changes the
		// text, not the key): unsealing, PKCS #8 with its checks, and the
		// fast signer's preparation cost more than the read, and the IdP
		// loads the keys for every token it signs. The activation is not
		// kept with the key: a retirement can bring it forward.
		if v, ok := s.parsed.Load(kid); ok && v.(parsedKey).stored == stored {
			sk := v.(parsedKey).key
			sk.ActivatesAt = keyActivation(activates)
			out = append(out, sk)
			continue
		}
		pemText, err := SigningKeyColumn.OpenStored(s.box, kid, stored)
		if err != nil {
			return nil, fmt.Errorf("project: signing key %s: %w", kid, err)
		}
		block, _ := pem.Decode([]byte(pemText))
		if block == nil {
			return nil, fmt.Errorf("project: signing key %s: bad PEM", kid)
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("project: signing key %s: %w", kid, err)
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("project: signing key %s is not RSA", kid)
		}
		sk := SigningKey{KID: kid, Private: rk, Signer: rsasign.New(rk)}
		s.parsed.Store(kid, parsedKey{stored: stored, key: sk})
		sk.ActivatesAt = keyActivation(activates)
		out = append(out, sk)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("project: signing keys: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("project: no signing key for %s: %w", projectID, store.ErrNotFound)
	}
	return out, nil
}

// keyActivation is a stored activates_at as a time: 0, for keys from
// before activations were kept, is the zero time (always active).
func keyActivation(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return store.Time(ms)
}

// RotateSecret adds a new project secret and returns it (shown once, stored
// hashed). With keepOld false every earlier secret stops working at once,
// which is what a leak calls for; with keepOld true they keep working until
// RetireSecret, so backends can switch without downtime.
func (s *Store) RotateSecret(ctx context.Context, projectID string, keepOld bool, also ...Also) (secretID, secret string, err error) {
	p, err := s.ByID(ctx, projectID)
	if err != nil {
		return "", "", err
	}
	secret = "secret-" + string(p.Env) + "-" + ids.Token()
	secretID = ids.New("secret", p.Env)
	err = s.db.Tx(ctx, func(q store.Querier) error {
		if !keepOld {
			if _, err := q.ExecContext(ctx, `DELETE FROM project_secrets WHERE project_id = $1`, p.ID); err != nil {
				return fmt.Errorf("project: rotate secret: %w", err)
			}
		}
		_, err := q.ExecContext(ctx, `INSERT INTO project_secrets (secret_id, project_id, secret_hash, last_four, created_at)
			VALUES ($1, $2, $3, $4, $5)`, secretID, p.ID, ids.Hash(secret), secret[len(secret)-4:], store.Millis(s.clock.Now()))
		if err != nil {
			return fmt.Errorf("project: rotate secret: %w", err)
		}
		return runAlso(q, secretID, also)
	})
	if err != nil {
		return "", "", err
	}
	return secretID, secret, nil
}

// SecretInfo describes a project secret without revealing it.
type SecretInfo struct {
	SecretID  string `json:"secret_id"`
	LastFour  string `json:"last_four"`
	CreatedAt int64  `json:"created_at"`
}

// ListSecrets describes the project's valid secrets, newest first.
func (s *Store) ListSecrets(ctx context.Context, projectID string) ([]SecretInfo, error) {
	rows, err := s.db.Read().QueryContext(ctx, `SELECT secret_id, last_four, created_at FROM project_secrets
		WHERE project_id = $1 ORDER BY created_at DESC, secret_id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("project: list secrets: %w", err)
	}
	defer rows.Close()
	var out []SecretInfo
	for rows.Next() {
		var i SecretInfo
		if err := rows.Scan(&i.SecretID, &i.LastFour, &i.CreatedAt); err != nil {
			return nil, fmt.Errorf("project: list secrets: %w", err)
		}
		out = append(out, i)
	}
	return out, rows.Err()
}

// RetireSecret revokes one secret; the project's last secret cannot be
// retired (rotate instead).
func (s *Store) RetireSecret(ctx context.Context, projectID, secretID string, also ...Also) error {
	return s.db.Tx(ctx, func(q store.Querier) error {
		// Two retires at once, of both secrets, would each count two and
		// delete one, leaving none: the project's row orders them.
		if err := s.db.LockRow(ctx, q, "projects", "project_id", projectID); err != nil {
			return fmt.Errorf("project: retire secret: %w", err)
		}
		var n int
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM project_secrets WHERE project_id = $1`, projectID).Scan(&n); err != nil {
			return fmt.Errorf("project: retire secret: %w", err)
		}
		res, err := q.ExecContext(ctx, `DELETE FROM project_secrets WHERE project_id = $1 AND secret_id = $2`, projectID, secretID)
		if err != nil {
			return fmt.Errorf("project: retire secret: %w", err)
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return notFound(fmt.Sprintf("secret %s is not one of the project's secrets", secretID))
		}
		if n <= 1 {
			return errors.New("project: cannot retire the only secret; use rotate-secret")
		}
		return runAlso(q, secretID, also)
	})
}
