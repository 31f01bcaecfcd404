package organization_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latchkey/latchkey/internal/apptest"
)

func keys(n int, v any) map[string]any {
	m := map[string]any{}
	for i := range n {
		m[fmt.Sprintf("k%02d", i)] = v
	}
	return m
}

// Organization trusted_metadata: merged on update, null deletes, nested
// values replaced whole, limits on the merged result; a refused update
// leaves the object as it was. Only the backend writes it (the SDK face
// drops it: UpdateMe, discovery create).
func TestOrganizationMetadataMerges(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("meta", "NOT_ALLOWED", map[string]any{"trusted_metadata": map[string]any{
			"stripe_customer_id": "cus_1", "plan": "free", "limits": map[string]any{"seats": 5}, "gone": nil}})
		path := "/v1/b2b/organizations/" + org
		stored := func() map[string]any {
			t.Helper()
			return e.Backend(http.MethodGet, path, nil).Body["organization"].(map[string]any)["trusted_metadata"].(map[string]any)
		}
		want := map[string]any{"stripe_customer_id": "cus_1", "plan": "free", "limits": map[string]any{"seats": 5.0}}
		if diff := cmp.Diff(want, stored()); diff != "" {
			t.Fatalf("created (-want +got):\n%s", diff)
		}
		for _, step := range []struct {
			update map[string]any
			want   map[string]any
		}{
			{map[string]any{"plan": "pro"}, map[string]any{"stripe_customer_id": "cus_1", "plan": "pro", "limits": map[string]any{"seats": 5.0}}},
			{map[string]any{"limits": map[string]any{"projects": 3}}, map[string]any{"stripe_customer_id": "cus_1", "plan": "pro", "limits": map[string]any{"projects": 3.0}}},
			{map[string]any{"plan": nil}, map[string]any{"stripe_customer_id": "cus_1", "limits": map[string]any{"projects": 3.0}}},
		} {
			r := e.Backend(http.MethodPut, path, map[string]any{"trusted_metadata": step.update})
			apptest.Want(t, r, 200, "")
			if diff := cmp.Diff(step.want, r.Body["organization"].(map[string]any)["trusted_metadata"]); diff != "" {
				t.Fatalf("after %v (-want +got):\n%s", step.update, diff)
			}
		}
		before := stored()
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"trusted_metadata": keys(19, 1)}), 400, "metadata_too_many_keys")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"trusted_metadata": map[string]any{"blob": strings.Repeat("x", 4100)}}),
			400, "metadata_too_large")
		if diff := cmp.Diff(before, stored()); diff != "" {
			t.Fatalf("refused updates changed the object (-before +after):\n%s", diff)
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Many", "trusted_metadata": keys(21, 1)}),
			400, "metadata_too_many_keys")
		d := e.Discover("ann@startup.test")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/discovery/organizations/create", map[string]any{
			"intermediate_session_token": d["intermediate_session_token"], "trusted_metadata": keys(21, 1)}), 400, "metadata_too_many_keys")
	})
}

// Member metadata merges the same way on every face that writes it: the
// backend's create and update (trusted and untrusted), an invite of a
// member already invited, and the SDK's self update and admin update of
// untrusted_metadata.
func TestMemberMetadataMerges(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		plain := func() map[string]any {
			t.Helper()
			return e.MemberByID(f.Acme, f.PlainID)
		}
		path := "/v1/b2b/organizations/" + f.Acme + "/members/" + f.PlainID
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{
			"trusted_metadata":   map[string]any{"role": "billing", "tier": "gold"},
			"untrusted_metadata": map[string]any{"theme": "dark", "locale": "de", "recent": []any{"a", "b"}}}), 200, "")

		// The member's own update: merged, null deletes, arrays replaced.
		r := e.SDK(http.MethodPut, "/b2b/organizations/members/update", map[string]any{"untrusted_metadata": map[string]any{
			"theme": "light", "locale": nil, "recent": []any{"c"}}}, f.Plain)
		apptest.Want(t, r, 200, "")
		want := map[string]any{"theme": "light", "recent": []any{"c"}}
		if diff := cmp.Diff(want, r.Data()["member"].(map[string]any)["untrusted_metadata"]); diff != "" {
			t.Fatalf("SDK self update (-want +got):\n%s", diff)
		}
		// An admin's update of the member through the SDK.
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+f.PlainID, map[string]any{
			"untrusted_metadata": map[string]any{"pinned": true}}, f.Admin), 200, "")
		want["pinned"] = true
		if diff := cmp.Diff(want, plain()["untrusted_metadata"]); diff != "" {
			t.Fatalf("SDK admin update (-want +got):\n%s", diff)
		}
		// The backend's update of trusted_metadata.
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"trusted_metadata": map[string]any{"tier": nil, "seat": 3}}), 200, "")
		if diff := cmp.Diff(map[string]any{"role": "billing", "seat": 3.0}, plain()["trusted_metadata"]); diff != "" {
			t.Fatalf("backend update (-want +got):\n%s", diff)
		}

		// Limits, on the merged object, on both faces; nothing changes.
		before := plain()
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/update", map[string]any{"untrusted_metadata": keys(19, 1)}, f.Plain),
			400, "metadata_too_many_keys")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/update", map[string]any{
			"untrusted_metadata": map[string]any{"blob": strings.Repeat("x", 4100)}}, f.Plain), 400, "metadata_too_large")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"trusted_metadata": keys(19, 1)}), 400, "metadata_too_many_keys")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"untrusted_metadata": map[string]any{"blob": strings.Repeat("x", 4100)}}),
			400, "metadata_too_large")
		after := plain()
		for _, k := range []string{"trusted_metadata", "untrusted_metadata"} {
			if diff := cmp.Diff(before[k], after[k]); diff != "" {
				t.Fatalf("refused updates changed %s (-before +after):\n%s", k, diff)
			}
		}

		// Creation stores the objects without their null keys, within limits.
		members := "/v1/b2b/organizations/" + f.Acme + "/members"
		r = e.Backend(http.MethodPost, members, map[string]any{"email_address": "new@acme.test",
			"trusted_metadata": map[string]any{"a": 1, "b": nil}, "untrusted_metadata": map[string]any{"c": nil}})
		apptest.Want(t, r, 200, "")
		m := r.Body["member"].(map[string]any)
		if diff := cmp.Diff(map[string]any{"a": 1.0}, m["trusted_metadata"]); diff != "" {
			t.Errorf("created trusted_metadata (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]any{}, m["untrusted_metadata"]); diff != "" {
			t.Errorf("created untrusted_metadata (-want +got):\n%s", diff)
		}
		apptest.Want(t, e.Backend(http.MethodPost, members, map[string]any{"email_address": "many@acme.test", "untrusted_metadata": keys(21, 1)}),
			400, "metadata_too_many_keys")

		// Inviting a member already invited merges into what they hold.
		invite := func(md map[string]any) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite", map[string]any{"organization_id": f.Acme,
				"email_address": "guest@acme.test", "trusted_metadata": md})
		}
		apptest.Want(t, invite(map[string]any{"source": "crm", "stage": "lead"}), 200, "")
		r = invite(map[string]any{"stage": nil, "owner": "ann"})
		apptest.Want(t, r, 200, "")
		if diff := cmp.Diff(map[string]any{"source": "crm", "owner": "ann"}, r.Body["member"].(map[string]any)["trusted_metadata"]); diff != "" {
			t.Errorf("re-invite (-want +got):\n%s", diff)
		}
		apptest.Want(t, invite(keys(19, 1)), 400, "metadata_too_many_keys")
	})
}
