package sso_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The API family's two rules for a SAML connection's verification
// certificates: at most five per connection, and an active connection is
// never left without one. Both are checked on both faces.

// certPEM is a fresh self-signed certificate (PEM) issued by issuer: an
// identity provider's next certificate, distinct from every other.
func certPEM(t *testing.T, issuer string) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: issuer},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// samlConnection is the organization's SAML connection connID as the
// backend lists it.
func samlConnection(t *testing.T, e *apptest.Env, orgID, connID string) map[string]any {
	t.Helper()
	r := e.Backend(http.MethodGet, "/v1/b2b/sso/"+orgID, nil)
	apptest.Want(t, r, 200, "")
	for _, c := range r.Body["saml_connections"].([]any) {
		if c := c.(map[string]any); c["connection_id"] == connID {
			return c
		}
	}
	t.Fatalf("no SAML connection %s: %s", connID, r.Raw)
	return nil
}

// certIDs are the ids of a connection's verification certificates, in
// order.
func certIDs(c map[string]any) []string {
	return listIDs(c, "verification_certificates", "certificate_id")
}

// listIDs are the idKey values of the objects in a connection's list
// (verification certificates, encryption keys), in order.
func listIDs(c map[string]any, list, idKey string) []string {
	var out []string
	items, _ := c[list].([]any)
	for _, v := range items {
		out = append(out, v.(map[string]any)[idKey].(string))
	}
	return out
}

// TestActiveConnectionKeepsItsLastVerificationCertificate: deleting an
// active connection's only certificate is refused on both faces (every
// login through it would fail), a rotation adds the next certificate
// first, and a pending connection may lose its last one.
func TestActiveConnectionKeepsItsLastVerificationCertificate(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		e.CreateAdmin(s.orgID, "root@acme.test")
		session := e.SessionFor(s.orgID, "root@acme.test")
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		sdkPath := "/b2b/sso/saml/" + s.connID
		only := certIDs(samlConnection(t, e, s.orgID, s.connID))[0]

		apptest.Want(t, e.Backend(http.MethodDelete, path+"/verification_certificates/"+only, nil),
			400, "cannot_delete_last_sso_verification_key")
		apptest.Want(t, e.SDK(http.MethodDelete, sdkPath+"/verification_certificates/"+only, nil, session),
			400, "cannot_delete_last_sso_verification_key")
		c := samlConnection(t, e, s.orgID, s.connID)
		if ids := certIDs(c); c["status"] != "active" || len(ids) != 1 || ids[0] != only {
			t.Fatalf("after the refused deletions: %v", c)
		}
		if org := orgAnswer(t, e, s.orgID); len(org["sso_active_connections"].([]any)) != 1 {
			t.Fatalf("no longer offered: %v", org)
		}
		if r := s.loginThrough(s.connID, "root@acme.test", "okta-root"); r.Body["organization_id"] != s.orgID {
			t.Fatalf("login after the refused deletions: %s", r.Raw)
		}

		// A rotation: with the next certificate added, the old one goes;
		// then the new one is the last and stays.
		r := e.Backend(http.MethodPut, path, map[string]any{"x509_certificate": certPEM(t, "next idp")})
		apptest.Want(t, r, 200, "")
		next := certIDs(r.Body["connection"].(map[string]any))[1]
		apptest.Want(t, e.SDK(http.MethodDelete, sdkPath+"/verification_certificates/"+only, nil, session), 200, "")
		apptest.Want(t, e.Backend(http.MethodDelete, path+"/verification_certificates/"+next, nil),
			400, "cannot_delete_last_sso_verification_key")

		// Pending (its SSO URL cleared), the connection logs no one in, and
		// may lose its last certificate, on either face.
		r = e.Backend(http.MethodPut, path, map[string]any{"idp_sso_url": ""})
		apptest.Want(t, r, 200, "")
		if st := r.Body["connection"].(map[string]any)["status"]; st != "pending" {
			t.Fatalf("without an SSO URL: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodDelete, path+"/verification_certificates/"+next, nil), 200, "")
		r = e.SDK(http.MethodPut, sdkPath, map[string]any{"x509_certificate": certPEM(t, "third idp")}, session)
		apptest.Want(t, r, 200, "")
		third := certIDs(r.Data()["connection"].(map[string]any))[0]
		apptest.Want(t, e.SDK(http.MethodDelete, sdkPath+"/verification_certificates/"+third, nil, session), 200, "")
		if c := samlConnection(t, e, s.orgID, s.connID); len(certIDs(c)) != 0 || c["status"] != "pending" {
			t.Fatalf("pending connection after its deletions: %v", c)
		}
	})
}

// TestAtMostFiveVerificationCertificates: a sixth distinct certificate is
// refused on both faces, whether sent as x509_certificate or brought by
// the identity provider's metadata, and the refused update changes
// nothing; the same certificate again is not a new one.
func TestAtMostFiveVerificationCertificates(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil) // one certificate: the IdP's
		e.CreateAdmin(s.orgID, "root@acme.test")
		session := e.SessionFor(s.orgID, "root@acme.test")
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		sdkPath := "/b2b/sso/saml/" + s.connID
		for i := range 4 {
			body := map[string]any{"x509_certificate": certPEM(t, fmt.Sprintf("idp %d", i))}
			if i%2 == 0 {
				apptest.Want(t, e.Backend(http.MethodPut, path, body), 200, "")
			} else {
				apptest.Want(t, e.SDK(http.MethodPut, sdkPath, body, session), 200, "")
			}
		}
		five := certIDs(samlConnection(t, e, s.orgID, s.connID))
		if len(five) != 5 {
			t.Fatalf("certificates: %v", five)
		}

		// The IdP's certificate again, sent or in its metadata: no new one.
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"x509_certificate": s.idp.certPEM()}), 200, "")
		apptest.Want(t, e.SDK(http.MethodPut, sdkPath+"/url", map[string]any{"metadata_url": s.idp.idp.MetadataURL.String()}, session), 200, "")

		sixth := certPEM(t, "sixth idp")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"x509_certificate": sixth, "display_name": "Renamed"}),
			400, "too_many_sso_verification_certificates")
		apptest.Want(t, e.SDK(http.MethodPut, sdkPath, map[string]any{"x509_certificate": sixth}, session),
			400, "too_many_sso_verification_certificates")
		other := newSAMLIdP(t)
		byURL := map[string]any{"metadata_url": other.idp.MetadataURL.String()}
		apptest.Want(t, e.Backend(http.MethodPut, path+"/url", byURL), 400, "too_many_sso_verification_certificates")
		apptest.Want(t, e.SDK(http.MethodPut, sdkPath+"/url", byURL, session), 400, "too_many_sso_verification_certificates")
		c := samlConnection(t, e, s.orgID, s.connID)
		if fmt.Sprint(certIDs(c)) != fmt.Sprint(five) || c["display_name"] != "Acme Okta" ||
			c["idp_sso_url"] != s.idp.idp.SSOURL.String() {
			t.Fatalf("after the refused updates: %v", c)
		}

		// Once one goes there is room again: the other IdP's metadata
		// brings its certificate.
		apptest.Want(t, e.Backend(http.MethodDelete, path+"/verification_certificates/"+five[1], nil), 200, "")
		r := e.Backend(http.MethodPut, path+"/url", byURL)
		apptest.Want(t, r, 200, "")
		if c := r.Body["connection"].(map[string]any); len(certIDs(c)) != 5 || c["idp_sso_url"] != other.idp.SSOURL.String() {
			t.Fatalf("after making room: %s", r.Raw)
		}
	})
}
