package sso_test

import (
	"net/http"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Metadata in another encoding than UTF-8 is read when the encoding is
// one XML processors must read (UTF-16, with its byte order mark) or a
// common single-byte one (ISO-8859-1, windows-1252, US-ASCII), its
// values stored in UTF-8; encoding/xml refused every declared encoding
// but UTF-8 with the generic message. An encoding this server does not
// read, or a declaration the bytes contradict, is refused naming it.
func TestSAMLMetadataEncodings(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		byURL, set := metadataServer(t)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID + "/url"
		sso := s.idp.idp.SSOURL.String()
		// doc is metadata declaring encoding enc (none when ""), whose
		// entity id and organization name are entity and org.
		doc := func(enc, entity, org string) string {
			d := idpEntityXML(entity, []string{sso}, s.idp.certPEM())
			d = strings.Replace(d, `</md:EntityDescriptor>`, `<md:Organization><md:OrganizationName xml:lang="de">`+org+
				`</md:OrganizationName><md:OrganizationDisplayName xml:lang="de">`+org+`</md:OrganizationDisplayName>`+
				`<md:OrganizationURL xml:lang="de">https://uni.example</md:OrganizationURL></md:Organization></md:EntityDescriptor>`, 1)
			if enc != "" {
				d = `<?xml version="1.0" encoding="` + enc + `"?>` + "\n" + d
			}
			return d
		}
		encode := func(t *testing.T, enc interface{ String(string) (string, error) }, s string) string {
			t.Helper()
			out, err := enc.String(s)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		latin1, win1252 := charmap.ISO8859_1.NewEncoder(), charmap.Windows1252.NewEncoder()
		utf16le := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder()
		utf16be := unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewEncoder()
		const straße = "https://idp.uni-münchen.example/straße"
		for _, c := range []struct {
			name, body, entity string
		}{
			{"ISO-8859-1", encode(t, latin1, doc("ISO-8859-1", straße, "Universität")), straße},
			{"latin1 in lower case", encode(t, latin1, doc("latin1", straße, "Université")), straße},
			{"windows-1252", encode(t, win1252, doc("windows-1252", straße+"/€", "Caf\u00e9 \u201cOkta\u201d")), straße + "/€"},
			{"US-ASCII", doc("US-ASCII", "https://idp.example/ascii", "ASCII only"), "https://idp.example/ascii"},
			{"UTF-16 little-endian", encode(t, utf16le, doc("UTF-16", straße, "Universität")), straße},
			{"UTF-16 big-endian without a declaration", encode(t, utf16be, doc("", straße, "日本大学")), straße},
			{"UTF-8 with a byte order mark", "\ufeff" + doc("UTF-8", straße, "Universität"), straße},
		} {
			t.Run(c.name, func(t *testing.T) {
				set(c.body)
				r := e.Backend(http.MethodPut, path, byURL)
				apptest.Want(t, r, 200, "")
				if got := r.Body["connection"].(map[string]any); got["idp_entity_id"] != c.entity || got["idp_sso_url"] != sso {
					t.Fatalf("stored %q, %q: %s", got["idp_entity_id"], got["idp_sso_url"], r.Raw)
				}
			})
		}
		for _, c := range []struct {
			name, body, says string
		}{
			{"an encoding not read", doc("Shift_JIS", "https://idp.example/sjis", "x"), `"Shift_JIS"`},
			{"UTF-16 declared on bytes that are not", doc("UTF-16", "https://idp.example/mislabeled", "x"), `"UTF-16"`},
			{"a UTF-16 byte order mark before another encoding",
				encode(t, utf16le, doc("ISO-8859-1", "https://idp.example/bom", "x")), `"ISO-8859-1"`},
			{"a declaration after the start", strings.Replace(doc("", "https://idp.example/late", "x"), "<md:IDPSSODescriptor",
				`<?xml version="1.0" encoding="ISO-8859-1"?><md:IDPSSODescriptor`, 1), `"ISO-8859-1"`},
		} {
			t.Run(c.name, func(t *testing.T) {
				set(c.body)
				wantMessage(t, e.Backend(http.MethodPut, path, byURL), 400, "invalid_xml_from_saml_metadata_url", c.says)
			})
		}
	})
}
