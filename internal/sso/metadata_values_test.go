package sso_test

import (
	"net/http"
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
