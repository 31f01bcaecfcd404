package scim

import (
	"maps"
	"net/http"
	"strings"
)

// attr describes one schema attribute for /Schemas.
func attr(name, typ string, multi, required, caseExact bool, uniqueness string, sub ...map[string]any) map[string]any {
	a := map[string]any{"name": name, "type": typ, "multiValued": multi, "required": required, "caseExact": caseExact,
		"mutability": "readWrite", "returned": "default", "uniqueness": uniqueness}
	if len(sub) > 0 {
		a["subAttributes"] = sub
	}
	return a
}

// readOnly marks a (and its sub-attributes) as one the server sets: the
// User's groups are changed through the Group resources (RFC 7643 4.1.2),
// and a User write never touches them.
func readOnly(a map[string]any) map[string]any {
	ro := func(m map[string]any) map[string]any {
		c := maps.Clone(m)
		c["mutability"] = "readOnly"
		return c
	}
	out := ro(a)
	if sub, ok := a["subAttributes"].([]map[string]any); ok {
		subs := make([]map[string]any, len(sub))
		for i, m := range sub {
			subs[i] = ro(m)
		}
		out["subAttributes"] = subs
	}
	return out
}

// canonical gives a string attribute its canonical values (RFC 7643 7),
// when it has any.
func canonical(a map[string]any, values ...string) map[string]any {
	if len(values) > 0 {
		a["canonicalValues"] = values
	}
	return a
}

// publishedSchemas are the schemas /Schemas publishes.
func publishedSchemas() []map[string]any {
	str := func(name string) map[string]any { return attr(name, "string", false, false, false, "none") }
	typed := []map[string]any{str("value"), str("type"), attr("primary", "boolean", false, false, false, "none")}
	member := []map[string]any{str("value"), str("display")}
	// kept is the sub-attributes of a multi-valued attribute in the shape
	// the User keeps (multi, user.go): value, type and primary. RFC 7643
	// 8.7.1 also has display, which is not kept, so not published.
	kept := func(name string, value map[string]any, types ...string) map[string]any {
		return attr(name, "complex", true, false, false, "none", value, canonical(str("type"), types...),
			attr("primary", "boolean", false, false, false, "none"))
	}
	photo := str("value")
	photo["type"], photo["referenceTypes"] = "reference", []string{"external"}
	return []map[string]any{
		{"schemas": []string{schemaSchema}, "id": schemaUser, "name": "User", "attributes": []any{
			attr("userName", "string", false, true, false, "server"), attr("externalId", "string", false, false, true, "none"),
			attr("name", "complex", false, false, false, "none", str("formatted"), str("familyName"), str("givenName"),
				str("middleName"), str("honorificPrefix"), str("honorificSuffix")),
			str("displayName"), str("nickName"), str("title"), str("userType"), str("preferredLanguage"), str("locale"),
			str("timezone"), str("profileUrl"), attr("active", "boolean", false, false, false, "none"),
			attr("emails", "complex", true, false, false, "none", typed...),
			attr("phoneNumbers", "complex", true, false, false, "none", typed...),
			attr("addresses", "complex", true, false, false, "none", str("formatted"), str("streetAddress"), str("locality"),
				str("region"), str("postalCode"), str("country"), canonical(str("type"), "work", "home", "other"),
				attr("primary", "boolean", false, false, false, "none")),
			kept("ims", str("value"), "aim", "gtalk", "icq", "xmpp", "msn", "skype", "qq", "yahoo"),
			kept("photos", photo, "photo", "thumbnail"),
			kept("entitlements", str("value")), kept("roles", str("value")),
			// 8.7.1 gives the value caseExact false, but a binary value is
			// base64 and "case exact" (2.3.6): "MIIC" is not "miic".
			kept("x509Certificates", attr("value", "binary", false, false, true, "none")),
			readOnly(attr("groups", "complex", true, false, false, "none", member...)),
		}, "meta": map[string]any{"resourceType": "Schema"}},
		{"schemas": []string{schemaSchema}, "id": schemaEnterprise, "name": "EnterpriseUser", "attributes": []any{
			str("employeeNumber"), str("costCenter"), str("organization"), str("division"), str("department"),
			attr("manager", "complex", false, false, false, "none", str("value"), str("displayName")),
		}, "meta": map[string]any{"resourceType": "Schema"}},
		{"schemas": []string{schemaSchema}, "id": schemaGroup, "name": "Group", "attributes": []any{
			attr("displayName", "string", false, true, false, "server"), attr("externalId", "string", false, false, true, "none"),
			attr("members", "complex", true, false, false, "none", member...),
		}, "meta": map[string]any{"resourceType": "Schema"}},
	}
}

func (s *Service) schemas(_ *http.Request, _ *conn) (int, any, error) {
	list := []any{}
	for _, sc := range publishedSchemas() {
		list = append(list, sc)
	}
	return http.StatusOK, listResponse{Schemas: []string{schemaList}, TotalResults: len(list), StartIndex: 1,
		ItemsPerPage: len(list), Resources: list}, nil
}

// schema is one schema at /Schemas/{id} (RFC 7644 4). A URN's scheme and
// namespace are case-insensitive (RFC 8141), and no two published ids
// differ only in case, so the id is matched without case.
func (s *Service) schema(r *http.Request, _ *conn) (int, any, error) {
	id := r.PathValue("id")
	for _, sc := range publishedSchemas() {
		if strings.EqualFold(sc["id"].(string), id) {
			return http.StatusOK, sc, nil
		}
	}
	return 0, nil, errNotFound("Schema", id)
}
