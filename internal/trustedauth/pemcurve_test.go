package trustedauth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/trustedauth"
)

// A PEM key on a curve no accepted algorithm uses (P-224: ES256, ES384
// and ES512 are P-256, P-384 and P-521) could verify no token, so the
// profile is refused when it is created, as a weak RSA key is, rather
// than created and then refusing every login.
func TestCreateProfileRefusesECKeysOffTheAlgorithmsCurves(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		newPEM := func(c elliptic.Curve) string {
			k, err := ecdsa.GenerateKey(c, rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
			if err != nil {
				t.Fatal(err)
			}
			return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
		}
		create := func(key string) error {
			_, err := e.App.TrustedAuth.CreateProfile(t.Context(), trustedauth.NewProfile{ProjectID: e.Project.Project.ID,
				Env: e.Project.Project.Env, Issuer: issuerName, Audience: audience, PEMKeys: []string{key}})
			return err
		}
		if err := create(newPEM(elliptic.P224())); err == nil {
			t.Fatal("a profile with a P-224 key, which verifies no token, was created")
		}
		for _, c := range []elliptic.Curve{elliptic.P256(), elliptic.P384(), elliptic.P521()} {
			if err := create(newPEM(c)); err != nil {
				t.Fatalf("%s: %v", c.Params().Name, err)
			}
		}
	})
}

// A profile stored before that rule with a P-224 key among its PEM keys
// keeps working with its other keys: the refused key is skipped when a
// token is checked, not an error for every token.
func TestStoredProfileSkipsARefusedPEMKey(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		p224, err := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		pemOf := func(k *ecdsa.PrivateKey) string {
			der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
			if err != nil {
				t.Fatal(err)
			}
			return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
		}
		placeholder, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		prof, err := e.App.TrustedAuth.CreateProfile(t.Context(), trustedauth.NewProfile{ProjectID: e.Project.Project.ID,
			Env: e.Project.Project.Env, Issuer: issuerName, Audience: audience, PEMKeys: []string{pemOf(placeholder), pemOf(p256)}})
		if err != nil {
			t.Fatal(err)
		}
		// As stored before the rule: the first key becomes the P-224 one.
		var stored string
		if err := e.App.DB.QueryRowContext(t.Context(), `SELECT pem_files FROM trusted_auth_token_profiles WHERE profile_id = $1`,
			prof.ProfileID).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		old, _ := json.Marshal(pemOf(placeholder))
		repl, _ := json.Marshal(pemOf(p224))
		if !strings.Contains(stored, string(old[1:len(old)-1])) {
			t.Fatalf("the stored PEM keys do not hold the placeholder: %s", stored)
		}
		stored = strings.Replace(stored, string(old[1:len(old)-1]), string(repl[1:len(repl)-1]), 1)
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE trusted_auth_token_profiles SET pem_files = $1 WHERE profile_id = $2`,
			stored, prof.ProfileID); err != nil {
			t.Fatal(err)
		}
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ana@acme.test")
		tok := sign(t, jose.ES256, p256, "", claimsFor(e.Clock.Now(), "ana@acme.test", "s1"))
		apptest.Want(t, attest(e, map[string]any{"profile_id": prof.ProfileID, "token": tok, "organization_id": org}), 200, "")
	})
}
