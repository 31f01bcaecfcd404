package scim_test

import (
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

func TestListSorting(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		sc := do(http.MethodGet, "/ServiceProviderConfig", nil)
		if sc.Body["sort"].(map[string]any)["supported"] != true {
			t.Fatalf("sort not advertised: %s", sc.Raw)
		}
		// All created at one instant: ties on meta.created fall to the id.
		users := map[string]string{} // userName -> id
		for _, u := range []struct{ name, ext string }{{"dave@x.test", "E2"}, {"Carol@x.test", ""}, {"ab@x.test", "E1"}, {"a-c@x.test", ""}} {
			r := do(http.MethodPost, "/Users", map[string]any{"userName": u.name, "externalId": u.ext})
			wantSCIM(t, r, 201, "")
			users[u.name] = r.Body["id"].(string)
		}
		byID := func(desc bool, names ...string) []string {
			out := slices.Clone(names)
			sort.Slice(out, func(i, j int) bool { return (users[out[i]] < users[out[j]]) != desc })
			return out
		}
		asc := []string{"a-c@x.test", "ab@x.test", "Carol@x.test", "dave@x.test"} // code point order of the folded names
		desc := slices.Clone(asc)
		slices.Reverse(desc)
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"sortBy=userName", asc},
			{"sortBy=USERNAME&sortOrder=Ascending", asc},
			{"sortBy=urn:ietf:params:scim:schemas:core:2.0:User:userName&sortOrder=descending", desc},
			{"sortBy=emails.value", asc},
			// No externalId sorts last ascending and first descending.
			{"sortBy=externalId", append([]string{"ab@x.test", "dave@x.test"}, byID(false, "Carol@x.test", "a-c@x.test")...)},
			{"sortBy=externalId&sortOrder=descending", append(byID(true, "Carol@x.test", "a-c@x.test"), "dave@x.test", "ab@x.test")},
			{"sortBy=meta.created", byID(false, asc...)},
			{"sortBy=meta.lastModified&sortOrder=descending", byID(true, asc...)},
			{"sortBy=id&sortOrder=descending", byID(true, asc...)},
			{"sortBy=userName&sortOrder=descending&filter=" + url.QueryEscape(`userName ne "dave@x.test"`), desc[1:]},
			{"sortOrder=descending", byID(false, asc...)}, // no sortBy: creation order (one instant here), then id
		} {
			if got := listNames(t, do, "Users", "userName", tc.query); !slices.Equal(got, tc.want) {
				t.Errorf("%s: got %q, want %q", tc.query, got, tc.want)
			}
		}
		// Pages of a sorted list neither overlap nor skip.
		for _, by := range []string{"userName", "meta.created", "externalId"} {
			var paged []string
			for start := 1; start <= 4; start++ {
				paged = append(paged, listNames(t, do, "Users", "userName", "sortBy="+by+"&count=1&startIndex="+strconv.Itoa(start))...)
			}
			if whole := listNames(t, do, "Users", "userName", "sortBy="+by); !slices.Equal(paged, whole) {
				t.Errorf("sortBy=%s: pages %q, whole %q", by, paged, whole)
			}
		}
		for _, q := range []string{"sortBy=title", "sortBy=name.givenName", "sortBy=urn:ietf:params:scim:schemas:core:2.0:Group:id",
			"sortBy=userName&sortOrder=sideways", "sortBy=a.b.c"} {
			wantSCIM(t, do(http.MethodGet, "/Users?"+q, nil), 400, "invalidValue")
		}

		for _, g := range []string{"Sales", "engineering", "Marketing"} {
			wantSCIM(t, do(http.MethodPost, "/Groups", map[string]any{"displayName": g}), 201, "")
		}
		if got := listNames(t, do, "Groups", "displayName", "sortBy=displayName&sortOrder=descending"); !slices.Equal(got,
			[]string{"Sales", "Marketing", "engineering"}) {
			t.Errorf("groups by displayName descending: %q", got)
		}
		if got := listNames(t, do, "Groups", "displayName", "sortBy=displayName&count=2&startIndex=2"); !slices.Equal(got,
			[]string{"Marketing", "Sales"}) {
			t.Errorf("groups page 2: %q", got)
		}
		wantSCIM(t, do(http.MethodGet, "/Groups?sortBy=members", nil), 400, "invalidValue")
	})
}
