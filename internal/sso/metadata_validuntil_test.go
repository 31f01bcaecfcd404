package sso_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// validUntil and cacheDuration are never read (a passed validUntil is not
// refused: see readMetadata), so no spelling of them refuses a document.
// gosaml2's EntityDescriptor parsed validUntil as RFC 3339, so a
// schema-valid xs:dateTime without a zone (or anything else it could not
// parse) refused the whole document with the generic message.
func TestSAMLMetadataValidUntilIsNotParsed(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		byURL, set := metadataServer(t)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID + "/url"
		entity, sso := s.idp.idp.MetadataURL.String(), s.idp.idp.SSOURL.String()
		doc := idpEntityXML(entity, []string{sso}, s.idp.certPEM())
		root := `entityID="` + entity + `"`
		for _, c := range []struct{ name, attrs string }{
			{"validUntil without a zone", `validUntil="2028-03-01T12:00:00"`},
			{"validUntil with fractional seconds", `validUntil="2031-03-01T12:00:00.1234567+01:00"`},
			{"validUntil in the past", `validUntil="2001-01-01T00:00:00Z"`},
			{"validUntil garbage", `validUntil="next Tuesday"`},
			{"cacheDuration garbage", `cacheDuration="a while" validUntil="2031-03-01T12:00:00Z"`},
		} {
			t.Run(c.name, func(t *testing.T) {
				for name, d := range map[string]string{
					"entity": strings.Replace(doc, root, root+" "+c.attrs, 1),
					"aggregate": `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" ` + c.attrs + `>` +
						strings.Replace(doc, root, root+" "+c.attrs, 1) + `</md:EntitiesDescriptor>`,
				} {
					set(d)
					r := e.Backend(http.MethodPut, path, byURL)
					apptest.Want(t, r, 200, "")
					if got := r.Body["connection"].(map[string]any); got["idp_entity_id"] != entity || got["idp_sso_url"] != sso ||
						got["status"] != "active" {
						t.Fatalf("%s: %s", name, r.Raw)
					}
				}
			})
		}
	})
}
