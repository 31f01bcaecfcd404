package sso_test

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/apptest/testkeys"
)

// encryptionKeyIDs are the ids of a connection's encryption private keys
// (as the backend lists them), in order.
func encryptionKeyIDs(c map[string]any) []string {
	return listIDs(c, "encryption_private_keys", "private_key_id")
}

// TestEncryptionKeysDeduplicatedAndAtMostFive: the same key uploaded again
// is no new key, however its PEM is written (PKCS #1 or #8, other line
// breaks), and a sixth distinct key is refused on both faces with
// too_many_encryption_certificates, the refused update changing nothing;
// a metadata URL update adds none; deleting one makes room.
func TestEncryptionKeysDeduplicatedAndAtMostFive(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		e.CreateAdmin(s.orgID, "root@acme.test")
		session := e.SessionFor(s.orgID, "root@acme.test")
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		sdkPath := "/b2b/sso/saml/" + s.connID
		upload := func(sdk bool, keyPEM string, extra map[string]any) apptest.Resp {
			body := map[string]any{"saml_encryption_private_key": keyPEM}
			for k, v := range extra {
				body[k] = v
			}
			if sdk {
				return e.SDK(http.MethodPut, sdkPath, body, session)
			}
			return e.Backend(http.MethodPut, path, body)
		}

		key := testkeys.Next()
		pkcs1 := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		pkcs8 := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
		apptest.Want(t, upload(false, pkcs1, nil), 200, "")
		first := encryptionKeyIDs(samlConnection(t, e, s.orgID, s.connID))
		for i, again := range []string{pkcs1, pkcs8, "\n\n" + strings.ReplaceAll(pkcs1, "\n", "\r\n")} {
			apptest.Want(t, upload(i%2 == 1, again, nil), 200, "")
		}
		if got := encryptionKeyIDs(samlConnection(t, e, s.orgID, s.connID)); len(first) != 1 || fmt.Sprint(got) != fmt.Sprint(first) {
			t.Fatalf("the same key three more times: %v, first %v", got, first)
		}

		for i := range 4 {
			apptest.Want(t, upload(i%2 == 0, rsaPEM(t), nil), 200, "")
		}
		five := encryptionKeyIDs(samlConnection(t, e, s.orgID, s.connID))
		if len(five) != 5 {
			t.Fatalf("encryption keys: %v", five)
		}
		// A key the connection has, at the limit: no new one, no refusal.
		apptest.Want(t, upload(false, pkcs8, nil), 200, "")

		sixth := rsaPEM(t)
		apptest.Want(t, upload(false, sixth, map[string]any{"display_name": "Renamed"}), 400, "too_many_encryption_certificates")
		apptest.Want(t, upload(true, sixth, nil), 400, "too_many_encryption_certificates")
		// The identity provider's metadata brings no encryption key.
		apptest.Want(t, e.SDK(http.MethodPut, sdkPath+"/url", map[string]any{"metadata_url": s.idp.idp.MetadataURL.String()}, session), 200, "")
		c := samlConnection(t, e, s.orgID, s.connID)
		if fmt.Sprint(encryptionKeyIDs(c)) != fmt.Sprint(five) || c["display_name"] != "Acme Okta" {
			t.Fatalf("after the refused updates: %v", c)
		}

		apptest.Want(t, e.Backend(http.MethodDelete, path+"/encryption_private_keys/"+five[2], nil), 200, "")
		r := upload(true, sixth, nil)
		apptest.Want(t, r, 200, "")
		if keys := r.Data()["connection"].(map[string]any)["saml_encryption_private_keys"].([]any); len(keys) != 5 {
			t.Fatalf("after making room: %s", r.Raw)
		}
	})
}
