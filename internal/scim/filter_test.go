package scim_test

// Filters beyond eq (RFC 7644 3.4.2.2) and sorting (3.4.2.3), through the
// SCIM service on every engine.

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// listNames lists a resource type with query and returns the value of
// field (userName, displayName) of each resource, in order.
func listNames(t *testing.T, do func(method, path string, body any) apptest.Resp, kind, field, query string) []string {
	t.Helper()
	r := do(http.MethodGet, "/"+kind+"?"+query, nil)
	wantSCIM(t, r, 200, "")
	out := []string{}
	for _, res := range r.Body["Resources"].([]any) {
		out = append(out, res.(map[string]any)[field].(string))
	}
	if total := int(r.Body["totalResults"].(float64)); total < len(out) {
		t.Fatalf("totalResults %d < %d resources: %s", total, len(out), r.Raw)
	}
	return out
}

func TestUserFilters(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		create := func(body map[string]any) string {
			r := do(http.MethodPost, "/Users", body)
			wantSCIM(t, r, 201, "")
			return r.Body["id"].(string)
		}
		// Created at 09:00:00.000, 10:00:00.400 and 11:00:00.800; the
		// resources show whole seconds.
		create(map[string]any{"userName": "ada@acme.test", "externalId": "ABC-1", "displayName": "Ada Lovelace",
			"name":   map[string]any{"givenName": "Ada", "familyName": "Lovelace"},
			"emails": []any{map[string]any{"value": "ada@acme.test", "type": "work", "primary": true}}})
		e.Clock.Advance(time.Hour + 400*time.Millisecond)
		create(map[string]any{"userName": "Bob_Smith", "externalId": "abc-1", "displayName": "Bob",
			"emails": []any{map[string]any{"value": "bob@example.com", "type": "work"}, map[string]any{"value": "bob@home.test", "type": "home"}}})
		e.Clock.Advance(time.Hour + 400*time.Millisecond)
		carol := create(map[string]any{"userName": "carol%c", "title": "CTO",
			"emails": []any{map[string]any{"value": "Carol@Example.com", "type": "home"}},
			"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": map[string]any{"department": "R&D"}})
		if r := do(http.MethodGet, "/Users/"+carol, nil); r.Body["meta"].(map[string]any)["created"] != "2026-03-01T11:00:00Z" {
			t.Fatalf("carol's meta: %s", r.Raw)
		}
		// Carol is deactivated at 12:00:00.800 (her lastModified).
		e.Clock.Advance(time.Hour)
		wantSCIM(t, do(http.MethodPatch, "/Users/"+carol, patch(map[string]any{"op": "replace", "path": "active", "value": false})), 200, "")

		all := []string{"ada@acme.test", "Bob_Smith", "carol%c"}
		for _, tc := range []struct {
			filter string
			want   []string
		}{
			{`userName eq "ADA@ACME.TEST"`, all[:1]},
			{`userName ne "ada@acme.test"`, all[1:]},
			{`userName sw "BOB"`, all[1:2]},
			{`userName co "_"`, all[1:2]}, // not a LIKE wildcard
			{`userName co "%"`, all[2:]},
			{`userName ew "%C"`, all[2:]},
			{`userName ew "a-much-longer-suffix-than-any-name"`, nil},
			{`userName gt "b"`, all[1:]},
			{`userName pr`, all},
			{`externalId eq "abc-1"`, all[1:2]}, // caseExact
			{`externalId sw "ABC"`, all[:1]},
			{`externalId co "bc"`, all[1:2]},
			{`externalId pr`, all[:2]},
			{`not (externalId pr)`, all[2:]},
			{`externalId eq null`, all[2:]},
			{`active eq false`, all[2:]},
			{`active eq "True"`, all[:2]},
			{`active ne true or userName sw "ada"`, []string{all[0], all[2]}},
			// emails and emails.value: the member's address (bob's is his
			// work one); a value filter: every address sent.
			{`emails eq "BOB@example.com"`, all[1:2]},
			{`emails eq "bob@home.test"`, nil},
			{`emails.value ew "@example.com"`, all[1:]},
			{`emails[type eq "work" and value co "@example.com"]`, all[1:2]},
			{`emails[type eq "home"]`, all[1:]},
			{`emails.type eq "HOME"`, all[1:]},
			{`emails[primary eq true]`, all[:1]},
			{`emails[not (primary eq true)]`, all[1:]},
			{`emails[type eq "work"].value eq "ada@acme.test"`, all[:1]},
			{`emails[type eq "home"].value eq "carol@example.com"`, all[2:]},
			{`emails[colour eq "red"]`, nil},
			{`displayName co "love"`, all[:1]},
			{`name.givenName eq "ada"`, all[:1]},
			{`urn:ietf:params:scim:schemas:core:2.0:User:userName sw "carol"`, all[2:]},
			{`urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department eq "r&d"`, all[2:]},
			{`title pr and not (displayName pr)`, all[2:]},
			{`(userName sw "ada" or userName sw "bob") and externalId pr`, all[:2]},
			{`userName sw "ada" or userName sw "bob" and externalId eq "none"`, all[:1]},
			// Instants, at the second a resource shows.
			{`meta.created gt "2026-03-01T10:00:00Z"`, all[2:]},
			{`meta.created eq "2026-03-01T10:00:00Z"`, all[1:2]},
			{`meta.created ge "2026-03-01T11:00:00+01:00"`, all[1:]},
			{`meta.created lt "2026-03-01T10:00:00.5Z"`, all[:2]},
			{`meta.lastModified gt "2026-03-01T11:00:00Z"`, all[2:]},
			{`meta.lastModified le "2026-03-01T11:59:59Z" and meta.created pr`, all[:2]},
			// An attribute no schema defines matches nothing.
			{`favouriteColour eq "blue"`, nil},
			{`not (favouriteColour eq "blue")`, all},
		} {
			got := listNames(t, do, "Users", "userName", "filter="+url.QueryEscape(tc.filter))
			if !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("filter %s: got %q, want %q", tc.filter, got, tc.want)
			}
		}
		for _, f := range []string{`phoneNumbers pr`, `meta.created co "2026"`, `meta.created gt "yesterday"`, `active gt true`,
			`userName eq 5`, `userName[value eq "x"]`, `userName eq "x" and`, `(userName pr`, strings.Repeat("(", 9) + "a pr" + strings.Repeat(")", 9),
			strings.TrimSuffix(strings.Repeat("a pr or ", 33), " or "), `userName eq "` + strings.Repeat("x", 2100) + `"`} {
			wantSCIM(t, do(http.MethodGet, "/Users?filter="+url.QueryEscape(f), nil), 400, "invalidFilter")
		}
	})
}

// addresses, entitlements and roles filter by their sub-attributes, as
// emails[...] does (not caseExact); ims, photos and x509Certificates are
// in the schema but not filterable here.
func TestUserFiltersOnKeptMultiValuedAttributes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		for _, u := range []map[string]any{
			{"userName": "ada@acme.test",
				"addresses": []any{map[string]any{"type": "work", "locality": "London", "postalCode": "N1 9GU", "country": "GB",
					"primary": "True"}, map[string]any{"type": "home", "locality": "Oxford"}},
				"entitlements": []any{map[string]any{"value": "Licence-Pro", "type": "licence"}},
				"roles":        []any{map[string]any{"value": "Reader", "primary": true}}},
			{"userName": "bob@acme.test",
				"addresses": []any{map[string]any{"type": "work", "streetAddress": "1 Rue de la Paix", "locality": "Paris",
					"country": "FR"}},
				"roles": []any{map[string]any{"value": "Writer"}, map[string]any{"value": "reader", "type": "extra"}}},
			{"userName": "carol@acme.test", "ims": []any{map[string]any{"value": "carol@chat", "type": "xmpp"}}},
		} {
			wantSCIM(t, do(http.MethodPost, "/Users", u), 201, "")
		}
		all := []string{"ada@acme.test", "bob@acme.test", "carol@acme.test"}
		for _, tc := range []struct {
			filter string
			want   []string
		}{
			{`addresses.locality eq "london"`, all[:1]},
			{`addresses.locality eq "Oxford"`, all[:1]},
			{`addresses[type eq "work" and country eq "fr"]`, all[1:2]},
			{`addresses[type eq "work"].locality sw "Lon"`, all[:1]},
			{`addresses[type eq "home" and locality eq "London"]`, nil}, // one value must match both
			{`addresses.streetAddress co "rue"`, all[1:2]},
			{`addresses.postalCode pr`, all[:1]},
			{`addresses[primary eq true]`, all[:1]},
			{`addresses.formatted pr`, nil},
			{`not (addresses.country pr)`, all[2:]},
			{`entitlements eq "licence-pro"`, all[:1]},
			{`entitlements.value sw "Licence"`, all[:1]},
			{`entitlements[type eq "licence"]`, all[:1]},
			{`roles.value eq "READER"`, all[:2]},
			{`roles eq "writer"`, all[1:2]},
			{`roles[value eq "reader" and primary eq true]`, all[:1]},
			{`roles[type eq "extra"].value eq "Reader"`, all[1:2]},
			{`roles pr`, all[:2]},
			{`urn:ietf:params:scim:schemas:core:2.0:User:roles.value eq "writer"`, all[1:2]},
			// Sub-attributes the schema does not have match nothing.
			{`addresses.value eq "London"`, nil},
			{`roles.display eq "Reader"`, nil},
			{`entitlements[display eq "Pro"]`, nil},
		} {
			got := listNames(t, do, "Users", "userName", "sortBy=userName&filter="+url.QueryEscape(tc.filter))
			if !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("filter %s: got %q, want %q", tc.filter, got, tc.want)
			}
		}
		for _, f := range []string{`ims eq "carol@chat"`, `ims[type eq "xmpp"]`, `photos.value pr`, `photos[primary eq true]`,
			`x509Certificates pr`, `x509Certificates[value eq "MIIC"]`, `addresses eq "London"`, `addresses pr`,
			`addresses[primary eq "maybe"]`, `roles.primary gt true`} {
			wantSCIM(t, do(http.MethodGet, "/Users?filter="+url.QueryEscape(f), nil), 400, "invalidFilter")
		}
	})
}

func TestGroupFilters(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test"})
		wantSCIM(t, r, 201, "")
		ada := r.Body["id"].(string)
		for i, g := range []map[string]any{
			{"displayName": "Engineering", "externalId": "G-1", "members": []any{map[string]any{"value": ada}}},
			{"displayName": "Sales", "externalId": "g-2"},
			{"displayName": "Engineering Leads"},
		} {
			e.Clock.Advance(time.Duration(i) * time.Hour)
			wantSCIM(t, do(http.MethodPost, "/Groups", g), 201, "")
		}
		all := []string{"Engineering", "Sales", "Engineering Leads"}
		for _, tc := range []struct {
			filter string
			want   []string
		}{
			{`displayName sw "engineering"`, []string{all[0], all[2]}},
			{`displayName ew "LEADS"`, all[2:]},
			{`members[value eq "` + strings.ToUpper(ada) + `"]`, all[:1]},
			{`members eq "` + ada + `"`, all[:1]},
			{`members.value eq "` + ada + `"`, all[:1]},
			{`members pr`, all[:1]},
			{`not (members pr)`, all[1:]},
			{`externalId eq "g-1"`, nil},
			{`externalId sw "G" or externalId sw "g"`, all[:2]},
			{`meta.created gt "2026-03-01T09:00:00Z"`, all[1:]},
			{`meta.lastModified ge "2026-03-01T10:00:00Z" and not (displayName eq "sales")`, all[2:]},
			{`urn:ietf:params:scim:schemas:core:2.0:Group:displayName eq "SALES"`, all[1:2]},
			{`urn:ietf:params:scim:schemas:core:2.0:User:userName eq "x"`, nil},
		} {
			got := listNames(t, do, "Groups", "displayName", "excludedAttributes=members&filter="+url.QueryEscape(tc.filter))
			if !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("filter %s: got %q, want %q", tc.filter, got, tc.want)
			}
		}
		for _, f := range []string{`members.display eq "ada@acme.test"`, `meta.created sw "2026"`, `displayName[value eq "x"]`} {
			wantSCIM(t, do(http.MethodGet, "/Groups?filter="+url.QueryEscape(f), nil), 400, "invalidFilter")
		}
	})
}
