package apptest_test

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/apptest/testkeys"
)

// The harness's server takes the RSA keys it makes from the test pool, for
// both kinds it makes: a project's signing key and a SAML connection's
// service-provider key. Generating them instead costs ~100 ms of CPU each,
// which was two thirds of the sso tests' CPU.
func TestServerKeysComeFromThePool(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		keys, err := e.App.Projects.SigningKeys(context.Background(), e.Project.Project.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !testkeys.Holds(&keys[0].Private.PublicKey) {
			t.Fatal("the project's signing key was generated, not taken from the pool")
		}

		orgID := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		r := e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+orgID, map[string]any{})
		apptest.Want(t, r, 200, "")
		certs := r.Body["connection"].(map[string]any)["signing_certificates"].([]any)
		block, _ := pem.Decode([]byte(certs[0].(map[string]any)["certificate"].(string)))
		if block == nil {
			t.Fatalf("signing certificate is not PEM: %s", r.Raw)
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		if !testkeys.Holds(cert.PublicKey.(*rsa.PublicKey)) {
			t.Fatal("the SAML connection's SP key was generated, not taken from the pool")
		}
	})
}
