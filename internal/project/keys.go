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

// SigningKey is an RS256 key a project signs session JWTs with.
type SigningKey struct {
	KID     string
	Private *rsa.PrivateKey
	// Signer signs with Private, on rsasign's fast path where the CPU
	// allows; nil means Private signs through crypto/rsa.
	Signer crypto.Signer
}

// KeyInfo describes a published key without its private part.
type KeyInfo struct {
	KID       string `json:"kid"`
	CreatedAt int64  `json:"created_at"` // Unix milliseconds
	Signing   bool   `json:"signing"`    // the newest key, which signs new JWTs
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

func (s *Store) newSigningKey(ctx context.Context, q store.Querier, projectID string, env ids.Env, now int64) (string, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
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
	_, err = q.ExecContext(ctx, `INSERT INTO signing_keys (kid, project_id, private_key_pem, active, created_at) VALUES ($1, $2, $3, $4, $5)`,
		kid, projectID, sealed, true, now)
	if err != nil {
		return "", fmt.Errorf("insert signing key: %w", err)
	}
	return kid, nil
}

// RotateSigningKey adds a new key that becomes the signing key, and keeps
// the old ones published so JWTs they signed still verify until they
// expire; RetireSigningKey removes one afterwards. It returns the new kid.
func (s *Store) RotateSigningKey(ctx context.Context, projectID string, also ...Also) (string, error) {
	p, err := s.ByID(ctx, projectID)
	if err != nil {
		return "", err
	}
	var kid string
	err = s.db.Tx(ctx, func(q store.Querier) error {
		if kid, err = s.newSigningKey(ctx, q, p.ID, p.Env, store.Millis(s.clock.Now())); err != nil {
			return err
		}
		return runAlso(q, kid, also)
	})
	return kid, err
}

// RetireSigningKey deletes one of the project's keys, private part
// included, so it leaves the JWKS and JWTs it signed stop verifying. The
// last key cannot be retired.
func (s *Store) RetireSigningKey(ctx context.Context, projectID, kid string, also ...Also) error {
	return s.db.Tx(ctx, func(q store.Querier) error {
		var n int
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM signing_keys WHERE project_id = $1`, projectID).Scan(&n); err != nil {
			return fmt.Errorf("project: retire key: %w", err)
		}
		res, err := q.ExecContext(ctx, `DELETE FROM signing_keys WHERE project_id = $1 AND kid = $2`, projectID, kid)
		if err != nil {
			return fmt.Errorf("project: retire key: %w", err)
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return fmt.Errorf("project: key %s of project %s: %w", kid, projectID, store.ErrNotFound)
		}
		if n <= 1 {
			return ErrLastSigningKey // rolls the delete back
		}
		return runAlso(q, kid, also)
	})
}

// ListSigningKeys describes the project's published keys, newest first.
func (s *Store) ListSigningKeys(ctx context.Context, projectID string) ([]KeyInfo, error) {
	rows, err := s.db.Read().QueryContext(ctx, `SELECT kid, created_at FROM signing_keys
		WHERE project_id = $1 AND active = $2 ORDER BY created_at DESC, kid`, projectID, true)
	if err != nil {
		return nil, fmt.Errorf("project: list keys: %w", err)
	}
	defer rows.Close()
	var out []KeyInfo
	for rows.Next() {
		var k KeyInfo
		if err := rows.Scan(&k.KID, &k.CreatedAt); err != nil {
			return nil, fmt.Errorf("project: list keys: %w", err)
		}
		k.Signing = len(out) == 0
		out = append(out, k)
	}
	return out, rows.Err()
}

// parsedKey is a signing key as parsed from its stored text.
type parsedKey struct {
	stored string
	key    SigningKey
}

// SigningKeys returns the project's active keys, newest first: the first
// signs, all verify and appear in the JWKS.
func (s *Store) SigningKeys(ctx context.Context, projectID string) ([]SigningKey, error) {
	rows, err := s.db.Read().QueryContext(ctx, `SELECT kid, private_key_pem FROM signing_keys
		WHERE project_id = $1 AND active = $2 ORDER BY created_at DESC, kid`, projectID, true)
	if err != nil {
		return nil, fmt.Errorf("project: signing keys: %w", err)
	}
	defer rows.Close()
	var out []SigningKey
	for rows.Next() {
		var kid, stored string
		if err := rows.Scan(&kid, &stored); err != nil {
			return nil, fmt.Errorf("project: scan signing key: %w", err)
		}
		// A key never changes under its kid, so one parsed before is reused
		// while its stored text is the same (a re-seal at rest changes the
		// text, not the key): unsealing, PKCS #8 with its checks, and the
		// fast signer's preparation cost more than the read, and the IdP
		// loads the keys for every token it signs.
		if v, ok := s.parsed.Load(kid); ok && v.(parsedKey).stored == stored {
			out = append(out, v.(parsedKey).key)
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
		var n int
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM project_secrets WHERE project_id = $1`, projectID).Scan(&n); err != nil {
			return fmt.Errorf("project: retire secret: %w", err)
		}
		res, err := q.ExecContext(ctx, `DELETE FROM project_secrets WHERE project_id = $1 AND secret_id = $2`, projectID, secretID)
		if err != nil {
			return fmt.Errorf("project: retire secret: %w", err)
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return fmt.Errorf("project: secret %s of project %s: %w", secretID, projectID, store.ErrNotFound)
		}
		if n <= 1 {
			return errors.New("project: cannot retire the only secret; use rotate-secret")
		}
		return runAlso(q, secretID, also)
	})
}
