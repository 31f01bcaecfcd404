package sso

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/store"
)

// certLifetime is how long the self-signed certificates of generated or
// uploaded service-provider keys are valid. Identity providers pin the
// certificate itself, so a long life avoids needless re-configuration.
const certLifetime = 10 * 365 * 24 * time.Hour

// parseCertificate reads an X.509 certificate given as PEM or as bare
// base64 DER (as metadata documents carry it).
func parseCertificate(text string) (*x509.Certificate, string, error) {
	text = strings.TrimSpace(text)
	var der []byte
	if block, _ := pem.Decode([]byte(text)); block != nil {
		der = block.Bytes
	} else {
		body := strings.Join(strings.Fields(text), "")
		wrapped := "-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n"
		block, _ := pem.Decode([]byte(wrapped))
		if block == nil {
			return nil, "", errors.New("not PEM or base64")
		}
		der = block.Bytes
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, "", err
	}
	return cert, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})), nil
}

// minRSABits is the smallest RSA modulus accepted for a key uploaded to
// sign or decrypt with, or in an identity provider's verification
// certificate (NIST SP 800-57's floor since 2013). Below 1024 bits Go's
// crypto/rsa refuses to sign or verify at all, so such a key would only
// fail later (a 500 on upload, every login refused); from 1024 up to it
// the key works but is one nobody should be starting to trust now.
const minRSABits = 2048

// parsePrivateKey reads an uploaded RSA private key in PKCS#1 or PKCS#8
// PEM, which must have at least minRSABits: the self-signed certificate
// made for it and every signature or decryption with it must work.
// Keys already stored are read by decodePrivateKey, without the size
// rule, so that a rule tightened later never locks a connection out.
func parsePrivateKey(text string) (*rsa.PrivateKey, error) {
	k, err := decodePrivateKey(text)
	if err != nil {
		return nil, err
	}
	if n := k.N.BitLen(); n < minRSABits {
		return nil, fmt.Errorf("a %d-bit RSA key: at least %d bits are needed", n, minRSABits)
	}
	return k, nil
}

// decodePrivateKey reads an RSA private key in PKCS#1 or PKCS#8 PEM.
func decodePrivateKey(text string) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode([]byte(strings.TrimSpace(text)))
	if block == nil {
		return nil, errors.New("not PEM")
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, errors.New("only RSA keys are supported")
	}
	return rk, nil
}

// selfSigned makes a certificate for key (the public half an identity
// provider needs) named after the connection.
func selfSigned(key crypto.Signer, name string, now time.Time) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(certLifetime),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}

// newKey builds a stored service-provider key from key (generated when
// nil), sealing the private half for its sso_secrets row.
func (s *Service) newKey(id, connID string, key *rsa.PrivateKey, now time.Time) (storedKey, error) {
	if s.d.Box == nil {
		return storedKey{}, apierr.New(apierr.EncryptionKeyNotConfigured)
	}
	if key == nil {
		var err error
		if key, err = s.d.RSAKeys.Generate(); err != nil {
			return storedKey{}, fmt.Errorf("sso: generate key: %w", err)
		}
	}
	cert, err := selfSigned(key, "Latchkey SSO "+connID, now)
	if err != nil {
		return storedKey{}, fmt.Errorf("sso: certificate: %w", err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	sealed, err := s.seal(id, string(keyPEM))
	if err != nil {
		return storedKey{}, err
	}
	return storedKey{storedCert: storedCert{ID: id, PEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})),
		Issuer: cert.Issuer.CommonName, CreatedAt: store.Millis(now), ExpiresAt: store.Millis(cert.NotAfter)},
		SealedKey: sealed}, nil
}

// openKey unseals a stored key for use.
func (s *Service) openKey(k storedKey) (*rsa.PrivateKey, []byte, error) {
	text, err := s.open(k.ID, k.SealedKey)
	if err != nil {
		return nil, nil, fmt.Errorf("sso: open key %s: %w", k.ID, err)
	}
	key, err := decodePrivateKey(text)
	if err != nil {
		return nil, nil, fmt.Errorf("sso: parse key %s: %w", k.ID, err)
	}
	cert, _, err := parseCertificate(k.PEM)
	if err != nil {
		return nil, nil, fmt.Errorf("sso: parse certificate %s: %w", k.ID, err)
	}
	return key, cert.Raw, nil
}

// holdsKey reports whether keys include pub: compared by public key, as
// each stored key's certificate carries it, so the same private key in
// another PEM encoding (PKCS #1 or #8, other line breaks) is recognised
// without unsealing anything.
func holdsKey(keys []storedKey, pub *rsa.PublicKey) (bool, error) {
	for _, k := range keys {
		cert, _, err := parseCertificate(k.PEM)
		if err != nil {
			return false, fmt.Errorf("sso: parse certificate %s: %w", k.ID, err)
		}
		if pub.Equal(cert.PublicKey) {
			return true, nil
		}
	}
	return false, nil
}

// verificationCert stores an identity provider's certificate, which must
// have a key a SAML signature can be verified with (keyProblem) and must
// not have expired at validAt unless that is zero: goxmldsig verifies only
// with a certificate inside its validity period, so an expired one would
// be accepted and then fail every login as a bad signature. One not valid
// yet is accepted: an upload adds to the connection's certificates, and
// staging the next certificate before the identity provider switches to
// it is how a rotation goes without a failed login. Every certificate a
// connection gets comes through here: uploaded, read from metadata
// (UpdateSAMLByURL applies its choice as an upload) or provisioned.
func verificationCert(id, text string, validAt time.Time) (storedCert, error) {
	cert, pemText, err := parseCertificate(text)
	if err != nil {
		return storedCert{}, apierr.Invalid("x509_certificate", "x509_certificate must be an X.509 certificate in PEM.")
	}
	if p := keyProblem(cert); p != "" {
		return storedCert{}, apierr.Invalid("x509_certificate", "x509_certificate "+p+
			": a verification certificate needs an RSA key of at least 2048 bits or an ECDSA key on P-256, P-384 or P-521.")
	}
	if p := certProblem(cert, validAt); p != "" && !validAt.IsZero() && validAt.After(cert.NotAfter) {
		return storedCert{}, apierr.Invalid("x509_certificate", "x509_certificate "+p+
			": upload the identity provider's current signing certificate.")
	}
	return storedCert{ID: id, PEM: pemText, Issuer: cert.Issuer.CommonName,
		CreatedAt: store.Millis(cert.NotBefore), ExpiresAt: store.Millis(cert.NotAfter)}, nil
}

// certProblem says why cert cannot verify a signature at now ("expired on
// ..." or "is not valid until ...", naming NotAfter or NotBefore in UTC),
// or "" when it can. The bounds are goxmldsig's: valid from NotBefore to
// NotAfter inclusive.
func certProblem(cert *x509.Certificate, now time.Time) string {
	switch {
	case now.After(cert.NotAfter):
		return "expired on " + cert.NotAfter.UTC().Format(time.RFC3339) + " (its NotAfter)"
	case now.Before(cert.NotBefore):
		return "is not valid until " + cert.NotBefore.UTC().Format(time.RFC3339) + " (its NotBefore)"
	}
	return ""
}

// keyProblem says why cert's public key can never verify an identity
// provider's SAML signature here ("has a 1024-bit RSA key", ...), or ""
// when it can. goxmldsig verifies RSA and ECDSA signatures only (an
// Ed25519 or DSA key fails every one), Go's crypto/rsa refuses RSA keys
// under 1024 bits, and keys under minRSABits are refused as an upload's
// private keys are. ECDSA is limited to the curves XML Signature's ECDSA
// methods are used with (P-256, P-384, P-521).
func keyProblem(cert *x509.Certificate) string {
	switch k := cert.PublicKey.(type) {
	case *rsa.PublicKey:
		if n := k.N.BitLen(); n < minRSABits {
			return fmt.Sprintf("has a %d-bit RSA key", n)
		}
		return ""
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256(), elliptic.P384(), elliptic.P521():
			return ""
		}
		return "has an ECDSA key on " + k.Curve.Params().Name + ", a curve SAML signatures are not verified with"
	}
	return "has a public key of type " + cert.PublicKeyAlgorithm.String() + ", which SAML signatures cannot be verified with"
}
