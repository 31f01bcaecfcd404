package organization_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latchkey/latchkey/internal/apptest"
)

// member_emails folds its values as addresses are stored (emailaddr:
// ASCII letters only), so a value that Unicode lower-casing would turn
// into a stored address (the Kelvin sign U+212A into k, the dotted
// capital I U+0130 into i) finds nothing, in the organization search and
// the member search alike.
func TestMemberEmailsFilterFoldsASCIIOnly(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		for _, email := range []string{"kate@acme.test", "ivy@acme.test"} {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
				map[string]any{"email_address": email}), 200, "")
		}
		for value, want := range map[string][]string{
			"KATE@ACME.TEST":      {"kate@acme.test"},
			"Ivy@Acme.Test":       {"ivy@acme.test"},
			"\u212Aate@acme.test": nil,
			"\u0130vy@acme.test":  nil,
		} {
			q := apptest.Query("AND", apptest.Filter("member_emails", []string{value}))
			var slugs []string
			if want != nil {
				slugs = []string{"acme"}
			}
			if got := slugsOf(e, q); !cmp.Equal(got, slugs) {
				t.Errorf("organizations with member_emails %q = %v, want %v", value, got, slugs)
			}
			q["organization_ids"] = []string{org}
			got, _ := e.EmailsOf(q)
			if !cmp.Equal(got, want) {
				t.Errorf("members with member_emails %q = %v, want %v", value, got, want)
			}
		}
	})
}
