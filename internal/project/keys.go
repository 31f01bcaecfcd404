package project

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"

	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
)

// SigningKey is an RS256 key a project signs session JWTs with.
type SigningKey struct {
	KID     string
	Private *rsa.PrivateKey
}

func newSigningKey(ctx context.Context, q store.Querier, projectID string, env ids.Env, now int64) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("generate signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("encode signing key: %w", err)
	}
	pemText := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	_, err = q.ExecContext(ctx, `INSERT INTO signing_keys (kid, project_id, private_key_pem, active, created_at) VALUES ($1, $2, $3, $4, $5)`,
		ids.New("jwk", env), projectID, string(pemText), true, now)
	if err != nil {
		return fmt.Errorf("insert signing key: %w", err)
	}
	return nil
}

// RotateSigningKey adds a new key that becomes the signing key, and keeps
// the old ones published (active) so JWTs they signed still verify until
// they expire. RetireSigningKeys removes all but the newest.
func (s *Store) RotateSigningKey(ctx context.Context, projectID string) error {
	p, err := s.ByID(ctx, projectID)
	if err != nil {
		return err
	}
	return s.db.Tx(ctx, func(q store.Querier) error {
		return newSigningKey(ctx, q, p.ID, p.Env, store.Millis(s.clock.Now()))
	})
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
		var kid, pemText string
		if err := rows.Scan(&kid, &pemText); err != nil {
			return nil, fmt.Errorf("project: scan signing key: %w", err)
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
		out = append(out, SigningKey{KID: kid, Private: rk})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("project: signing keys: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("project: no signing key for %s: %w", projectID, store.ErrNotFound)
	}
	return out, nil
}
