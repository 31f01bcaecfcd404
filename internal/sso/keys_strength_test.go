package sso_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/apptest/testkeys"
)

// smallRSAKey is an RSA key of bits bits (a multiple of 2), made from
// two primes here: crypto/rsa.GenerateKey refuses sizes under 1024 bits,
// and an identity provider or an administrator's old tooling does not.
func smallRSAKey(t *testing.T, bits int) *rsa.PrivateKey {
	t.Helper()
	one, e := big.NewInt(1), big.NewInt(65537)
	for {
		p, err := rand.Prime(rand.Reader, bits/2)
		if err != nil {
			t.Fatal(err)
		}
		q, err := rand.Prime(rand.Reader, bits/2)
		if err != nil {
			t.Fatal(err)
		}
		phi := new(big.Int).Mul(new(big.Int).Sub(p, one), new(big.Int).Sub(q, one))
		d := new(big.Int).ModInverse(e, phi)
		if p.Cmp(q) == 0 || d == nil {
			continue
		}
		k := &rsa.PrivateKey{PublicKey: rsa.PublicKey{N: new(big.Int).Mul(p, q), E: 65537}, D: d, Primes: []*big.Int{p, q}}
		k.Precompute()
		if err := k.Validate(); err != nil || k.N.BitLen() != bits {
			t.Fatalf("%d-bit key: %v (%d bits)", bits, err, k.N.BitLen())
		}
		return k
	}
}

func rsaKeyOf(t *testing.T, bits int) *rsa.PrivateKey {
	t.Helper()
	if bits < 1024 {
		return smallRSAKey(t, bits)
	}
	if bits == 2048 {
		return testkeys.Next() // the pool's keys are RSA-2048
	}
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func privatePEM(t *testing.T, k *rsa.PrivateKey, pkcs8 bool) string {
	t.Helper()
	if !pkcs8 {
		return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// TestSAMLUploadedPrivateKeysNeed2048Bits: a signing or encryption private
// key under 2048 bits is refused as the field's invalid_request (512 bits
// answered a 500 once its certificate could not be made; 1024 was stored),
// and the connection keeps the keys it had; 2048 bits are accepted.
func TestSAMLUploadedPrivateKeysNeed2048Bits(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		keys := func() (signing, encryption []string) {
			c := samlConnection(t, e, s.orgID, s.connID)
			return listIDs(c, "signing_certificates", "certificate_id"), listIDs(c, "encryption_private_keys", "private_key_id")
		}
		signing, encryption := keys()
		for _, field := range []string{"signing_private_key", "saml_encryption_private_key"} {
			for _, bits := range []int{512, 1024} {
				for _, pkcs8 := range []bool{false, true} {
					r := e.Backend(http.MethodPut, path, map[string]any{field: privatePEM(t, rsaKeyOf(t, bits), pkcs8)})
					apptest.Want(t, r, 400, "invalid_request")
					if d, _ := r.Body["error_details"].(map[string]any); d["field"] != field {
						t.Fatalf("%d-bit %s: %s", bits, field, r.Raw)
					}
					if s2, e2 := keys(); fmt.Sprint(s2, e2) != fmt.Sprint(signing, encryption) {
						t.Fatalf("keys after refusing a %d-bit %s: %v %v, had %v %v", bits, field, s2, e2, signing, encryption)
					}
				}
			}
			apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{field: privatePEM(t, rsaKeyOf(t, 2048), true)}), 200, "")
			s2, e2 := keys()
			// The uploaded signing key replaces the generated one; an
			// encryption key is added.
			if field == "signing_private_key" && (len(s2) != 1 || s2[0] == signing[0]) ||
				field == "saml_encryption_private_key" && len(e2) != len(encryption)+1 {
				t.Fatalf("keys after a 2048-bit %s: %v %v, had %v %v", field, s2, e2, signing, encryption)
			}
			signing, encryption = s2, e2
		}
	})
}

// certWithKey is a certificate (PEM) for pub, valid around now, signed by
// a P-256 key of its own: its issuer's signature is not what is checked,
// only the key an identity provider would sign with.
func certWithKey(t *testing.T, pub crypto.PublicKey) string {
	t.Helper()
	ca, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(9), Subject: pkix.Name{CommonName: "weak idp"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(48 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, ca)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func ecdsaPub(t *testing.T, c elliptic.Curve) crypto.PublicKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &k.PublicKey
}

// TestSAMLVerificationCertificateNeedsAKeyThatVerifies: a certificate
// whose key can never verify a SAML signature here (RSA under 2048 bits,
// Ed25519, ECDSA on another curve) is refused at upload naming the key,
// rather than stored to fail every login; the connection keeps what it
// had, and a pending connection given only such a certificate stays
// pending. RSA 2048 and ECDSA on P-256, P-384 and P-521 are stored.
func TestSAMLVerificationCertificateNeedsAKeyThatVerifies(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		edPub, _, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			pub  crypto.PublicKey
			says string
		}{
			{"RSA 512", &rsaKeyOf(t, 512).PublicKey, "has a 512-bit RSA key"},
			{"RSA 1024", &rsaKeyOf(t, 1024).PublicKey, "has a 1024-bit RSA key"},
			{"Ed25519", edPub, "Ed25519"},
			{"ECDSA P-224", ecdsaPub(t, elliptic.P224()), "P-224"},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := e.Backend(http.MethodPut, path, map[string]any{"x509_certificate": certWithKey(t, c.pub)})
				wantMessage(t, r, 400, "invalid_request", c.says)
				if d, _ := r.Body["error_details"].(map[string]any); d["field"] != "x509_certificate" {
					t.Fatalf("details: %s", r.Raw)
				}
				if ids := certIDs(samlConnection(t, e, s.orgID, s.connID)); len(ids) != 1 {
					t.Fatalf("certificates after the refusal: %v", ids)
				}
			})
		}
		for i, pub := range []crypto.PublicKey{&rsaKeyOf(t, 2048).PublicKey, ecdsaPub(t, elliptic.P256()),
			ecdsaPub(t, elliptic.P384()), ecdsaPub(t, elliptic.P521())} {
			apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"x509_certificate": certWithKey(t, pub)}), 200, "")
			if ids := certIDs(samlConnection(t, e, s.orgID, s.connID)); len(ids) != i+2 {
				t.Fatalf("certificates after the good one %d: %v", i, ids)
			}
		}

		// A new connection given every setting but a usable certificate
		// never becomes active.
		r := e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+s.orgID, map[string]any{"display_name": "Second"})
		apptest.Want(t, r, 200, "")
		second := r.Body["connection"].(map[string]any)["connection_id"].(string)
		r = e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+second, map[string]any{
			"idp_entity_id": "https://idp.example/entity", "idp_sso_url": "https://idp.example/sso",
			"x509_certificate": certWithKey(t, edPub)})
		apptest.Want(t, r, 400, "invalid_request")
		if c := samlConnection(t, e, s.orgID, second); c["status"] != "pending" || len(certIDs(c)) != 0 {
			t.Fatalf("second connection: %v", c)
		}
	})
}

// TestSAMLMetadataCertificateNeedsAKeyThatVerifies: metadata whose signing
// certificate has a key that can never verify is refused as an upload of
// it is, and nothing of the metadata is stored; beside a usable one, it is
// passed over.
func TestSAMLMetadataCertificateNeedsAKeyThatVerifies(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		weak := certWithKey(t, &rsaKeyOf(t, 1024).PublicKey)
		good := certWithKey(t, &rsaKeyOf(t, 2048).PublicKey)
		keyDescriptor := func(certPEM string) string {
			block, _ := pem.Decode([]byte(certPEM))
			return `<md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#">` +
				`<ds:X509Data><ds:X509Certificate>` + base64.StdEncoding.EncodeToString(block.Bytes) +
				`</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			keys := keyDescriptor(weak)
			if r.URL.Path == "/mixed" {
				keys += keyDescriptor(good) // listed after the weak one
			}
			fmt.Fprintf(w, `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example/entity">`+
				`<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">%s`+
				`<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example/sso"/>`+
				`</md:IDPSSODescriptor></md:EntityDescriptor>`, keys)
		}))
		t.Cleanup(srv.Close)
		before := samlConnection(t, e, s.orgID, s.connID)
		wantMessage(t, e.Backend(http.MethodPut, path+"/url", map[string]any{"metadata_url": srv.URL + "/metadata"}),
			400, "invalid_request", "has a 1024-bit RSA key")
		after := samlConnection(t, e, s.orgID, s.connID)
		if len(certIDs(after)) != 1 || after["idp_entity_id"] != before["idp_entity_id"] || after["idp_sso_url"] != before["idp_sso_url"] ||
			!strings.HasPrefix(after["idp_sso_url"].(string), "http://127.0.0.1") {
			t.Fatalf("connection after the refusal: %v", after)
		}

		// Listed beside a usable one, it is passed over: the usable one is
		// added and the metadata applied.
		apptest.Want(t, e.Backend(http.MethodPut, path+"/url", map[string]any{"metadata_url": srv.URL + "/mixed"}), 200, "")
		after = samlConnection(t, e, s.orgID, s.connID)
		if len(certIDs(after)) != 2 || after["idp_sso_url"] != "https://idp.example/sso" {
			t.Fatalf("connection after the metadata with a usable certificate: %v", after)
		}
	})
}
