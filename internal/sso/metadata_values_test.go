package sso_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Metadata whose entityID or HTTP-Redirect Location is blank, or whose
// Location is no absolute http(s) URL, is refused as metadata, and the
// connection keeps its identity provider: a blank value was stored as ""
// on a 200, turning an active connection pending (found by
// FuzzReadMetadata), and a relative Location was refused as a field
// idp_sso_url the request had not sent.
func TestSAMLMetadataBlankOrRelativeValues(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		byURL, set := metadataServer(t)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID + "/url"
		entity, sso := s.idp.idp.MetadataURL.String(), s.idp.idp.SSOURL.String()
		set(idpEntityXML(" "+entity+"\n", []string{" " + sso + " "}, s.idp.certPEM()))
		apptest.Want(t, e.Backend(http.MethodPut, path, byURL), 200, "")
		before := samlConnection(t, e, s.orgID, s.connID)
		if before["status"] != "active" || before["idp_entity_id"] != entity || before["idp_sso_url"] != sso {
			t.Fatalf("from metadata with spaces around its values: %v", before)
		}
		for _, c := range []struct {
			name, entity, sso, message string
		}{
			{"blank entityID", "  ", sso, "needs an entityID"},
			{"blank Location", entity, " \n ", "HTTP-Redirect SingleSignOnService"},
			{"relative Location", entity, "/idp/sso", "not an absolute http or https URL"},
			{"javascript Location", entity, "javascript:alert(1)", "not an absolute http or https URL"},
		} {
			t.Run(c.name, func(t *testing.T) {
				set(idpEntityXML(c.entity, []string{c.sso}, s.idp.certPEM()))
				wantMessage(t, e.Backend(http.MethodPut, path, byURL), 400, "invalid_xml_from_saml_metadata_url", c.message)
				after := samlConnection(t, e, s.orgID, s.connID)
				if after["status"] != "active" || after["idp_entity_id"] != entity || after["idp_sso_url"] != sso {
					t.Fatalf("after the refusal: %v", after)
				}
			})
		}
	})
}

// An attribute the metadata is read by (entityID, a SingleSignOnService's
// Binding and Location, a KeyDescriptor's use) given in a namespace or
// twice is refused: encoding/xml took the last of any namespace, so a
// foreign x:entityID replaced the identity provider's entityID (inputs
// written against FuzzReadMetadata's property, which they broke), and an
// x:Binding made a POST endpoint the redirect one. Other attributes so repeated (a REFEDS security contact's
// contactType and remd:contactType) are still read.
func TestSAMLMetadataAmbiguousAttributes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		byURL, set := metadataServer(t)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID + "/url"
		entity, sso := s.idp.idp.MetadataURL.String(), s.idp.idp.SSOURL.String()
		doc := idpEntityXML(entity, []string{sso}, s.idp.certPEM())
		root := `entityID="` + entity + `"`
		endpoint := `Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"`
		for _, c := range []struct{ name, old, new string }{
			{"entityID in a namespace after it", root, root + ` xmlns:x="urn:x" x:entityID="https://evil.example/"`},
			{"entityID twice", root, root + ` entityID="https://evil.example/"`},
			{"Binding in a namespace", endpoint, `xmlns:x="urn:x" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" x:` + endpoint},
			{"use in a namespace", `use="signing"`, `xmlns:x="urn:x" use="encryption" x:use="signing"`},
		} {
			t.Run(c.name, func(t *testing.T) {
				set(strings.Replace(doc, c.old, c.new, 1))
				wantMessage(t, e.Backend(http.MethodPut, path, byURL), 400, "invalid_xml_from_saml_metadata_url", "in a namespace or more than once")
				if after := samlConnection(t, e, s.orgID, s.connID); after["idp_entity_id"] == "https://evil.example/" {
					t.Fatalf("after the refusal: %v", after)
				}
			})
		}
		contact := `<md:ContactPerson xmlns:remd="http://refeds.org/metadata" contactType="other" ` +
			`remd:contactType="http://refeds.org/metadata/contactType/security"><md:EmailAddress>mailto:security@idp.example</md:EmailAddress></md:ContactPerson>`
		set(strings.Replace(doc, `</md:EntityDescriptor>`, contact+`</md:EntityDescriptor>`, 1))
		r := e.Backend(http.MethodPut, path, byURL)
		apptest.Want(t, r, 200, "")
		if c := r.Body["connection"].(map[string]any); c["idp_entity_id"] != entity || c["idp_sso_url"] != sso || c["status"] != "active" {
			t.Fatalf("with a REFEDS security contact: %s", r.Raw)
		}
	})
}
