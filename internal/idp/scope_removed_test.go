package idp_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/rbac"
)

// A custom scope the operator removes from the policy is gone for the
// apps that held it: the next refresh, its refresh token and its access
// token lack it, and the consent given to it is forgotten, so a scope of
// that name defined again later is asked for again. What the member
// consented to otherwise still holds: the family goes on, and the built-in
// scopes need no new consent.
func TestScopeRemovedFromPolicyLeavesGrants(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		docsPolicy(t, e)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.org+"/members/"+f.member,
			map[string]any{"roles": []string{"editor"}}), 200, "")
		f.session, _ = e.LoginByEmailOTP(f.org, "ada@acme.test")
		id, secret := f.client("third_party", nil)
		rt := f.grant(id, secret, "openid", "read:docs", "offline_access").Body["refresh_token"].(string)

		// The same policy without the scope: the role and the resource stay.
		pol, err := e.App.RBAC.Custom(context.Background(), e.Project.Project.ID)
		if err != nil {
			t.Fatal(err)
		}
		pol.Scopes = []rbac.Scope{}
		if _, err := e.App.RBAC.SetCustom(context.Background(), e.Project.Project.ID, pol); err != nil {
			t.Fatal(err)
		}
		want := []string{"openid", "offline_access"}
		for i := range 2 { // and it does not come back at the next rotation
			r := f.refresh(id, secret, rt, "")
			apptest.Want(t, r, 200, "")
			if got := fields(r.Body["scope"]); !slices.Equal(got, want) {
				t.Fatalf("refresh %d after the scope left the policy: scope %v, want %v", i, got, want)
			}
			if got := fields(f.claims(r.Body["access_token"].(string))["scope"]); !slices.Equal(got, want) {
				t.Fatalf("refresh %d: access token scope %v, want %v", i, got, want)
			}
			rt = r.Body["refresh_token"].(string)
		}
		start := e.SDK("POST", "/idp/b2b/oauth/authorize/start", authReq(id, "openid", "offline_access"), f.session)
		if apptest.Want(t, start, 200, ""); start.Data()["consent_required"] != false {
			t.Fatalf("the scopes still in the policy lost their consent: %s", start.Raw)
		}

		docsPolicy(t, e) // the name is defined again
		start = e.SDK("POST", "/idp/b2b/oauth/authorize/start", authReq(id, "openid", "read:docs", "offline_access"), f.session)
		if apptest.Want(t, start, 200, ""); start.Data()["consent_required"] != true {
			t.Fatalf("a scope defined again was taken as consented: %s", start.Raw)
		}
		if r := f.refresh(id, secret, rt, ""); r.Status != 200 || !slices.Equal(fields(r.Body["scope"]), want) {
			t.Fatalf("refresh once the scope is back: %s", r.Raw)
		}
	})
}
