package scim_test

// The multi-valued attributes beyond emails and phone numbers (addresses,
// ims, photos, entitlements, roles, x509Certificates): kept, answered in
// SCIM's names and in the member's scim_attributes, edited by PATCH, and
// bounded.

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// values returns the list attr of a User resource or of scim_attributes.
func values(t *testing.T, doc map[string]any, attr string) []map[string]any {
	t.Helper()
	raw, _ := doc[attr].([]any)
	out := make([]map[string]any, len(raw))
	for i, v := range raw {
		out[i] = v.(map[string]any)
	}
	return out
}

func scimAttributes(t *testing.T, e *apptest.Env, org, uid string) map[string]any {
	t.Helper()
	reg, _ := member(t, e, org, uid)["scim_registration"].(map[string]any)
	attrs, _ := reg["scim_attributes"].(map[string]any)
	if attrs == nil {
		t.Fatalf("member %s has no scim_attributes", uid)
	}
	return attrs
}

func TestUserMultiValuedAttributesAreKeptAndEchoed(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, map[string]any{"identity_provider": "microsoft-entra"})
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		cert := strings.Repeat("MIIC", 1500) // 6000 bytes, as a base64 certificate can be

		r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test",
			"addresses": []any{map[string]any{"type": "work", "streetAddress": "1 Main St", "locality": "London",
				"region": "LDN", "postalCode": "N1 9GU", "country": "GB", "formatted": "1 Main St\nLondon", "primary": "True"}},
			"ims":              []any{map[string]any{"value": "ada@chat", "type": "xmpp"}},
			"photos":           []any{map[string]any{"value": "https://img.acme.test/ada.png", "type": "photo"}},
			"entitlements":     []any{map[string]any{"value": "E1"}, map[string]any{"value": "E2"}},
			"roles":            []any{map[string]any{"value": "Reader", "primary": true}},
			"x509Certificates": []any{map[string]any{"value": cert}}})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)
		for _, doc := range []map[string]any{r.Body, do(http.MethodGet, "/Users/"+uid, nil).Body} {
			a := values(t, doc, "addresses")
			if len(a) != 1 || a[0]["streetAddress"] != "1 Main St" || a[0]["postalCode"] != "N1 9GU" || a[0]["locality"] != "London" ||
				a[0]["region"] != "LDN" || a[0]["country"] != "GB" || a[0]["primary"] != true || a[0]["type"] != "work" {
				t.Fatalf("addresses = %v", doc["addresses"])
			}
			if len(values(t, doc, "ims")) != 1 || len(values(t, doc, "photos")) != 1 || len(values(t, doc, "entitlements")) != 2 ||
				len(values(t, doc, "roles")) != 1 || values(t, doc, "x509Certificates")[0]["value"] != cert {
				t.Fatalf("user = %v", doc)
			}
		}
		attrs := scimAttributes(t, e, org, uid)
		a := values(t, attrs, "addresses")
		if len(a) != 1 || a[0]["street_address"] != "1 Main St" || a[0]["postal_code"] != "N1 9GU" || a[0]["formatted"] != "1 Main St\nLondon" ||
			a[0]["primary"] != true {
			t.Fatalf("scim_attributes.addresses = %v", attrs["addresses"])
		}
		if ims := values(t, attrs, "ims"); len(ims) != 1 || ims[0]["value"] != "ada@chat" || ims[0]["type"] != "xmpp" || ims[0]["primary"] != false {
			t.Fatalf("scim_attributes.ims = %v", attrs["ims"])
		}
		if p := values(t, attrs, "photos"); len(p) != 1 || p[0]["value"] != "https://img.acme.test/ada.png" {
			t.Fatalf("scim_attributes.photos = %v", attrs["photos"])
		}
		if en := values(t, attrs, "entitlements"); len(en) != 2 || en[1]["value"] != "E2" {
			t.Fatalf("scim_attributes.entitlements = %v", attrs["entitlements"])
		}
		if c := values(t, attrs, "x509certificates"); len(c) != 1 || c[0]["value"] != cert {
			t.Fatalf("scim_attributes.x509certificates has %d values", len(c))
		}

		// Entra's paths: a sub-attribute of the work address, a home
		// address it does not have yet, the primary role by its flag.
		r = do(http.MethodPatch, "/Users/"+uid, patch(
			map[string]any{"op": "Replace", "path": `addresses[type eq "work"].streetAddress`, "value": "2 High St"},
			map[string]any{"op": "Add", "path": `addresses[type eq "home"].locality`, "value": "Oxford"},
			map[string]any{"op": "Add", "path": `roles[primary eq "True"].value`, "value": "Writer"},
			map[string]any{"op": "Remove", "path": `entitlements[value eq "E1"]`},
			map[string]any{"op": "Remove", "path": "photos"},
			map[string]any{"op": "Replace", "value": map[string]any{"ims": []any{map[string]any{"value": "ada2@chat"}}}}))
		wantSCIM(t, r, 200, "")
		attrs = scimAttributes(t, e, org, uid)
		a = values(t, attrs, "addresses")
		if len(a) != 2 || a[0]["street_address"] != "2 High St" || a[0]["locality"] != "London" || a[1]["type"] != "home" ||
			a[1]["locality"] != "Oxford" || a[1]["street_address"] != "" {
			t.Fatalf("patched addresses = %v", attrs["addresses"])
		}
		if ro := values(t, attrs, "roles"); len(ro) != 1 || ro[0]["value"] != "Writer" || ro[0]["primary"] != true {
			t.Fatalf("patched roles = %v", attrs["roles"])
		}
		if en := values(t, attrs, "entitlements"); len(en) != 1 || en[0]["value"] != "E2" {
			t.Fatalf("patched entitlements = %v", attrs["entitlements"])
		}
		if p, ims := values(t, attrs, "photos"), values(t, attrs, "ims"); len(p) != 0 || len(ims) != 1 || ims[0]["value"] != "ada2@chat" {
			t.Fatalf("patched photos %v, ims %v", p, ims)
		}
		if _, ok := r.Body["photos"]; ok || values(t, r.Body, "addresses")[1]["locality"] != "Oxford" {
			t.Fatalf("patched user = %s", r.Raw)
		}

		// A user's roles are attributes, not grants.
		if src := roleSources(member(t, e, org, uid), "Writer"); src != nil {
			t.Fatalf("the SCIM roles attribute granted a role: %v", src)
		}
	})
}

func TestUserMultiValuedAttributesAreBounded(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		many := func(n int) []any {
			out := make([]any, n)
			for i := range out {
				out[i] = map[string]any{"value": fmt.Sprintf("E%d", i)}
			}
			return out
		}
		long := strings.Repeat("x", 1025)
		for _, extra := range []map[string]any{
			{"entitlements": many(51)},
			{"addresses": []any{map[string]any{"type": "work", "streetAddress": long}}},
			{"photos": []any{map[string]any{"value": long}}},
			{"x509Certificates": []any{map[string]any{"value": strings.Repeat("A", 16<<10+1)}}},
			{"emails": append(many(50), map[string]any{"value": "ada@acme.test"})},
		} {
			body := map[string]any{"userName": "ada@acme.test"}
			for k, v := range extra {
				body[k] = v
			}
			wantSCIM(t, do(http.MethodPost, "/Users", body), 400, "invalidValue")
		}
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test", "entitlements": many(50)})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)

		// PATCH add appends to what is stored: the bound holds across pushes.
		add := map[string]any{"op": "add", "path": "entitlements", "value": []any{map[string]any{"value": "one more"}}}
		wantSCIM(t, do(http.MethodPatch, "/Users/"+uid, patch(add)), 400, "invalidValue")
		wantSCIM(t, do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "add",
			"path": `addresses[type eq "work"].region`, "value": long})), 400, "invalidValue")
		if n := len(values(t, scimAttributes(t, e, org, uid), "entitlements")); n != 50 {
			t.Fatalf("%d entitlements stored after refused pushes", n)
		}

		// A deprovisioning goes through: the stored values stay.
		r = do(http.MethodPatch, "/Users/"+uid, patch(add, map[string]any{"op": "replace", "path": "active", "value": "False"}))
		wantSCIM(t, r, 200, "")
		if m := member(t, e, org, uid); m["status"] != "deleted" {
			t.Fatalf("a deprovisioning with too many entitlements left the member %v", m["status"])
		}
		if n := len(values(t, r.Body, "entitlements")); n != 50 {
			t.Fatalf("%d entitlements after a deprovisioning that sent 51", n)
		}
	})
}

// Every single-valued string of a User is bounded like the strings of
// multi-valued values (1024 bytes): refused at creation and in a push
// keeping the user active, kept at its stored value in a deprovisioning.
// A group's externalId has a user's bound.
func TestUserSingleValuedStringsAreBounded(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		const ext = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
		long, fits := strings.Repeat("x", 1025), strings.Repeat("x", 1024)
		paths := []string{"displayName", "nickName", "profileUrl", "title", "userType", "preferredLanguage", "locale", "timezone",
			"name.formatted", "name.familyName", "name.givenName", "name.middleName", "name.honorificPrefix", "name.honorificSuffix",
			ext + ":employeeNumber", ext + ":costCenter", ext + ":organization", ext + ":division", ext + ":department",
			ext + ":manager.value", ext + ":manager.$ref", ext + ":manager.displayName"}
		// set is a User body with path set to v.
		set := func(path, v string) map[string]any {
			body := map[string]any{"userName": "ada@acme.test", "schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:User", ext}}
			parent, attr := body, path
			if strings.HasPrefix(path, ext+":") {
				parent, attr = map[string]any{}, strings.TrimPrefix(path, ext+":")
				body[ext] = parent
			}
			if before, after, ok := strings.Cut(attr, "."); ok {
				child := map[string]any{}
				parent[before], parent, attr = child, child, after
			}
			parent[attr] = v
			return body
		}
		for _, path := range paths {
			wantSCIM(t, do(http.MethodPost, "/Users", set(path, long)), 400, "invalidValue")
		}
		if n := e.Count(`SELECT COUNT(*) FROM scim_registrations`); n != 0 {
			t.Fatalf("%d users created with an overlong string", n)
		}
		r := do(http.MethodPost, "/Users", set("title", fits))
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)
		for _, path := range paths {
			wantSCIM(t, do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "replace", "path": path, "value": long})),
				400, "invalidValue")
			wantSCIM(t, do(http.MethodPut, "/Users/"+uid, set(path, long)), 400, "invalidValue")
		}
		r = do(http.MethodGet, "/Users/"+uid, nil)
		if r.Body["title"] != fits || len(r.Raw) > 4096 {
			t.Fatalf("after refused pushes: %d bytes, title of %d", len(r.Raw), len(r.Body["title"].(string)))
		}

		// A deprovisioning goes through: the stored value stays.
		r = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "replace", "path": "title", "value": long},
			map[string]any{"op": "replace", "path": "nickName", "value": long},
			map[string]any{"op": "replace", "path": "active", "value": false}))
		wantSCIM(t, r, 200, "")
		if r.Body["title"] != fits || r.Body["nickName"] != nil || member(t, e, org, uid)["status"] != "deleted" {
			t.Fatalf("deprovisioning with overlong strings: title of %v, nickName %v", len(fmt.Sprint(r.Body["title"])), r.Body["nickName"] != nil)
		}

		wantSCIM(t, do(http.MethodPost, "/Groups", map[string]any{"displayName": "G", "externalId": strings.Repeat("g", 257)}), 400, "invalidValue")
		r = do(http.MethodPost, "/Groups", map[string]any{"displayName": "G", "externalId": strings.Repeat("g", 256)})
		wantSCIM(t, r, 201, "")
		gid := r.Body["id"].(string)
		wantSCIM(t, do(http.MethodPut, "/Groups/"+gid, map[string]any{"displayName": "G", "externalId": strings.Repeat("g", 257)}), 400, "invalidValue")
		wantSCIM(t, do(http.MethodPatch, "/Groups/"+gid, patch(map[string]any{"op": "replace", "path": "externalId",
			"value": strings.Repeat("g", 257)})), 400, "invalidValue")
	})
}
