package scim_test

// /Schemas (RFC 7644 4) publishes every User attribute the service keeps,
// with RFC 7643 7's characteristics, so a client can discover them.

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

const userURN = "urn:ietf:params:scim:schemas:core:2.0:User"

// schemaAttr finds attribute name among attrs (a schema's attributes or
// an attribute's subAttributes); nil when absent.
func schemaAttr(attrs any, name string) map[string]any {
	list, _ := attrs.([]any)
	for _, a := range list {
		if m, _ := a.(map[string]any); m["name"] == name {
			return m
		}
	}
	return nil
}

// wantAttr fails unless a has the characteristics RFC 7643 8.7.1 gives the
// User's optional, read-write attributes, with type typ and caseExact.
func wantAttr(t *testing.T, where string, a map[string]any, typ string, multi, caseExact bool) {
	t.Helper()
	if a == nil {
		t.Fatalf("%s is not published", where)
	}
	if a["type"] != typ || a["multiValued"] != multi || a["required"] != false || a["caseExact"] != caseExact ||
		a["mutability"] != "readWrite" || a["returned"] != "default" || a["uniqueness"] != "none" {
		t.Fatalf("%s = %v, want type %s, multiValued %v, caseExact %v, optional, readWrite, returned by default, no uniqueness",
			where, a, typ, multi, caseExact)
	}
}

func TestSchemasPublishKeptUserAttributes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }

		r := do(http.MethodGet, "/Schemas", nil)
		wantSCIM(t, r, 200, "")
		var user map[string]any
		for _, s := range r.Body["Resources"].([]any) {
			if m := s.(map[string]any); m["id"] == userURN {
				user = m
			}
		}
		if user == nil {
			t.Fatalf("no User schema: %s", r.Raw)
		}
		// The one schema at its own address is the same document.
		one := do(http.MethodGet, "/Schemas/"+userURN, nil)
		wantSCIM(t, one, 200, "")
		a, _ := json.Marshal(user)
		b, _ := json.Marshal(one.Body)
		if string(a) != string(b) {
			t.Fatalf("/Schemas/%s = %s, want the listed %s", userURN, b, a)
		}
		for _, urn := range []string{"urn:ietf:params:scim:schemas:core:2.0:Group",
			"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User", "urn:ietf:params:scim:schemas:core:2.0:user"} {
			if r := do(http.MethodGet, "/Schemas/"+urn, nil); r.Status != 200 || r.Body["id"] == nil {
				t.Fatalf("/Schemas/%s: %s", urn, r.Raw)
			}
		}
		wantSCIM(t, do(http.MethodGet, "/Schemas/urn:example:params:scim:schemas:Badge", nil), 404, "")
		// A User's groups are set through the Group resources: read-only
		// here, sub-attributes too (RFC 7643 4.1.2).
		groups := schemaAttr(user["attributes"], "groups")
		if groups == nil || groups["mutability"] != "readOnly" {
			t.Fatalf("groups = %v, want readOnly", groups)
		}
		for _, sub := range groups["subAttributes"].([]any) {
			if m := sub.(map[string]any); m["mutability"] != "readOnly" {
				t.Fatalf("groups.%v = %v, want readOnly", m["name"], m)
			}
		}

		attrs := user["attributes"]
		for _, tc := range []struct {
			attr  string
			value string // the value sub-attribute's type
		}{{"ims", "string"}, {"photos", "reference"}, {"entitlements", "string"}, {"roles", "string"},
			{"x509Certificates", "binary"}} {
			m := schemaAttr(attrs, tc.attr)
			wantAttr(t, tc.attr, m, "complex", true, false)
			var names []string
			for _, s := range m["subAttributes"].([]any) {
				names = append(names, s.(map[string]any)["name"].(string))
			}
			if !slices.Equal(names, []string{"value", "type", "primary"}) {
				t.Fatalf("%s has sub-attributes %q, want the kept value, type and primary", tc.attr, names)
			}
			// A binary value is base64, so case matters (RFC 7643 2.3.6).
			wantAttr(t, tc.attr+".value", schemaAttr(m["subAttributes"], "value"), tc.value, false, tc.value == "binary")
			wantAttr(t, tc.attr+".type", schemaAttr(m["subAttributes"], "type"), "string", false, false)
			wantAttr(t, tc.attr+".primary", schemaAttr(m["subAttributes"], "primary"), "boolean", false, false)
		}
		photo := schemaAttr(schemaAttr(attrs, "photos")["subAttributes"], "value")
		if rt, _ := photo["referenceTypes"].([]any); len(rt) != 1 || rt[0] != "external" {
			t.Fatalf("photos.value = %v, want referenceTypes [external]", photo)
		}
		for attr, want := range map[string][]any{"ims": {"aim", "gtalk", "icq", "xmpp", "msn", "skype", "qq", "yahoo"},
			"photos": {"photo", "thumbnail"}, "addresses": {"work", "home", "other"}} {
			typ := schemaAttr(schemaAttr(attrs, attr)["subAttributes"], "type")
			if got, _ := typ["canonicalValues"].([]any); !slices.Equal(got, want) {
				t.Fatalf("%s.type canonicalValues = %v, want %v", attr, got, want)
			}
		}

		addr := schemaAttr(attrs, "addresses")
		wantAttr(t, "addresses", addr, "complex", true, false)
		var names []string
		for _, s := range addr["subAttributes"].([]any) {
			sub := s.(map[string]any)
			name := sub["name"].(string)
			names = append(names, name)
			typ := "string"
			if name == "primary" {
				typ = "boolean"
			}
			wantAttr(t, "addresses."+name, sub, typ, false, false)
		}
		if !slices.Equal(names, []string{"formatted", "streetAddress", "locality", "region", "postalCode", "country", "type", "primary"}) {
			t.Fatalf("addresses has sub-attributes %q", names)
		}
	})
}
