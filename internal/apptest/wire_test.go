package apptest_test

// The SDK wire allowlist (internal/apptest/sdk_wire.json) says which fields
// each answer of the SDK face (the public token's face, read by browsers)
// may carry: exactly what the browser SDK's declared response types read,
// minus the fields Latchkey withholds from browsers. Env.Do checks every
// SDK answer of every test against it.
//
// Adding an SDK route? Add ONE line to ROUTES in scripts/gen-sdk-wire.mjs
// (the pattern as mounted and the response type @stytch/vanilla-js declares
// for the call), or to CUSTOM for a call the SDK has no type for; run
// `node scripts/gen-sdk-wire.mjs`; commit the JSON. Give the route's answer
// an SDK wire type (wire.go in its package) holding only those fields.

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// TestEverySDKRouteHasAWireAllowlist walks the live route table: an SDK
// route without an entry fails, and so does an entry for no route.
func TestEverySDKRouteHasAWireAllowlist(t *testing.T) {
	e := apptest.New(t, storetest.SQLite(t), nil)
	mounted := map[string]bool{}
	for _, r := range e.App.RouteTable() {
		if r.Face != httpapi.SDK {
			continue
		}
		mounted[r.Pattern] = true
		if !apptest.Wire().Has(r.Pattern) {
			t.Errorf("SDK route %q has no entry in internal/apptest/sdk_wire.json: add its line to scripts/gen-sdk-wire.mjs and rerun it", r.Pattern)
		}
	}
	if len(mounted) < 50 {
		t.Fatalf("route table lists %d SDK routes; expected every one", len(mounted))
	}
	for _, p := range apptest.Wire().Patterns() {
		if !mounted[p] {
			t.Errorf("sdk_wire.json has an entry for %q, which is not mounted: remove it from scripts/gen-sdk-wire.mjs", p)
		}
	}
}

// TestWireCheckCatchesAGrownAnswer: the check itself reports a field the
// SDK does not declare, nested ones included, and passes a declared answer.
func TestWireCheckCatchesAGrownAnswer(t *testing.T) {
	w := apptest.Wire()
	extra, err := w.Check(http.MethodPost, "/sdk/v1/b2b/magic_links/email/login_or_signup",
		map[string]any{"request_id": "r", "status_code": 200, "member": map[string]any{}})
	if err != nil || len(extra) != 1 || extra[0] != "member" {
		t.Fatalf("login_or_signup with a member: extra = %v, %v", extra, err)
	}
	extra, _ = w.Check(http.MethodPut, "/sdk/v1/b2b/organizations/members/member-test-1", map[string]any{
		"member":       map[string]any{"member_id": "m", "trusted_metadata": map[string]any{}},
		"organization": map[string]any{"sso_active_connections": []any{map[string]any{"connection_id": "c", "secret": "s"}}},
	})
	if len(extra) != 2 {
		t.Fatalf("grown member/organization: extra = %v", extra)
	}
	if _, err := w.Check(http.MethodPost, "/sdk/v1/b2b/no/such/route", map[string]any{}); err == nil {
		t.Fatal("a route without an entry passed")
	}
}
