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
//
// The backend face (/v1/...) has its allowlist too: backend_wire.json, from
// the Node client's declared types (scripts/gen-backend-wire.mjs, where a
// route the Node client does not call is CUSTOM or EXCLUDED with its
// reason). Env.Do checks every successful backend answer against it.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/httpapi"
)

// TestEverySDKRouteHasAWireAllowlist walks the live route table: an SDK
// route without an entry fails, and so does an entry for no route.
func TestEverySDKRouteHasAWireAllowlist(t *testing.T) {
	e := apptest.New(t, apptest.SQLite(t), nil)
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

// TestEveryBackendRouteHasAWireAllowlist walks the live route table: a
// backend route (/v1/...) with neither an entry in backend_wire.json nor a
// listed exclusion fails, and so does an entry or exclusion for no route.
func TestEveryBackendRouteHasAWireAllowlist(t *testing.T) {
	e := apptest.New(t, apptest.SQLite(t), nil)
	w := apptest.BackendWire()
	mounted := map[string]bool{}
	backend := 0
	for _, r := range e.App.RouteTable() {
		mounted[r.Pattern] = true
		if r.Face != httpapi.Backend {
			continue
		}
		backend++
		if !w.Has(r.Pattern) && !w.Excluded(r.Pattern) {
			t.Errorf("backend route %q has no entry in internal/apptest/backend_wire.json: add its line to "+
				"ROUTES (the Node client's response type), CUSTOM or EXCLUDED in scripts/gen-backend-wire.mjs and rerun it", r.Pattern)
		}
	}
	if backend < 100 {
		t.Fatalf("route table lists %d backend routes; expected every one", backend)
	}
	for _, p := range append(w.Patterns(), w.ExcludedPatterns()...) {
		if !mounted[p] {
			t.Errorf("backend_wire.json names %q, which is not mounted: remove it from scripts/gen-backend-wire.mjs", p)
		}
	}
}

// TestBackendWireCheckCatchesAGrownAnswer: the backend check reports a
// field the Node client does not declare, nested ones included, passes a
// declared answer (trusted_metadata is the backend's to read), skips an
// excluded route and refuses a route with no entry.
func TestBackendWireCheckCatchesAGrownAnswer(t *testing.T) {
	w := apptest.BackendWire()
	member := map[string]any{"member_id": "m", "trusted_metadata": map[string]any{"k": "v"}}
	extra, err := w.Check(http.MethodGet, "/v1/b2b/organizations/organization-test-1/member?member_id=m",
		map[string]any{"request_id": "r", "status_code": 200, "member_id": "m", "member": member})
	if err != nil || len(extra) != 0 {
		t.Fatalf("a declared member answer: extra = %v, %v", extra, err)
	}
	member["password_hash"] = "x"
	extra, _ = w.Check(http.MethodPut, "/v1/b2b/organizations/organization-test-1/members/member-test-1", map[string]any{
		"member":       member,
		"organization": map[string]any{"sso_active_connections": []any{map[string]any{"connection_id": "c", "secret": "s"}}},
		"session":      "s",
	})
	slices.Sort(extra)
	want := []string{"member.password_hash", "organization.sso_active_connections[0].secret", "session"}
	if !slices.Equal(extra, want) {
		t.Fatalf("grown member update: extra = %v, want %v", extra, want)
	}
	if extra, err := w.Check(http.MethodGet, "/v1/b2b/scim/scim-connection-test-1/Users", map[string]any{"Resources": []any{}}); err != nil || extra != nil {
		t.Fatalf("an excluded SCIM route was checked: %v, %v", extra, err)
	}
	if _, err := w.Check(http.MethodPost, "/v1/b2b/no/such/route", map[string]any{}); err == nil {
		t.Fatal("a route without an entry passed")
	}

	// The harness hook: a grown answer fails the test that received it.
	rec := &errRecorder{}
	apptest.CheckAnswer(rec, http.MethodPost, "/v1/b2b/organizations/search", 200,
		[]byte(`{"request_id":"r","status_code":200,"organizations":[{"organization_id":"o","internal_flag":true}]}`))
	if grown := rec.matching("carries fields"); len(grown) != 1 || !strings.Contains(grown[0], "organizations[0].internal_flag") {
		t.Fatalf("CheckAnswer on a grown backend answer: %q", rec.errs)
	}
	rec = &errRecorder{}
	apptest.CheckAnswer(rec, http.MethodPost, "/v1/b2b/organizations/search", 400, []byte(`{"anything":1}`))
	if len(rec.errs) != 0 {
		t.Fatalf("an error answer was checked: %q", rec.errs)
	}
}

// TestWireCheckCatchesADroppedField: a real SDK login answer carries every
// field the browser SDK declares as required; the check reports one
// dropped at the top, inside an object and inside an array element, counts
// JSON null as present, and the harness hook fails the test that got it.
func TestWireCheckCatchesADroppedField(t *testing.T) {
	e := apptest.New(t, apptest.SQLite(t), nil)
	org := e.CreateOrg("dropped", "ALL_ALLOWED", nil)
	const path = "/sdk/v1/b2b/otps/email/authenticate"
	d := e.EmailLogin(org, "ada@example.com")
	if f, err := apptest.Wire().Audit(http.MethodPost, path, d); err != nil || len(f.Missing) != 0 {
		t.Fatalf("a real login answer: missing = %v, %v", f.Missing, err)
	}
	member := d["member"].(map[string]any)
	roles, _ := member["roles"].([]any)
	if len(roles) == 0 {
		t.Fatalf("login answer's member has no roles: %v", member)
	}
	d["status_code"] = nil // declared `number`, but null is present: the type check is not this one's
	delete(d, "member_id")
	delete(member, "name")
	delete(roles[0].(map[string]any), "role_id")
	f, _ := apptest.Wire().Audit(http.MethodPost, path, d)
	want := []string{"member.name", "member.roles[0].role_id", "member_id"}
	if !slices.Equal(f.Missing, want) || len(f.Extra) != 0 {
		t.Fatalf("dropped fields: missing = %v, extra = %v; want missing %v", f.Missing, f.Extra, want)
	}

	// A nullable required field: null is present, absence is not (the
	// password screens' member search, CUSTOM in gen-sdk-wire.mjs).
	search := "/sdk/v1/b2b/organizations/members/search"
	if f, _ := apptest.Wire().Audit(http.MethodPost, search, map[string]any{"request_id": "r", "status_code": 200, "member": nil}); len(f.Missing) != 0 {
		t.Fatalf("member: null counted as absent: %v", f.Missing)
	}
	if f, _ := apptest.Wire().Audit(http.MethodPost, search, map[string]any{"request_id": "r", "status_code": 200}); !slices.Equal(f.Missing, []string{"member"}) {
		t.Fatalf("an absent nullable member: missing = %v", f.Missing)
	}

	raw, _ := json.Marshal(map[string]any{"data": d})
	rec := &errRecorder{}
	apptest.CheckAnswer(rec, http.MethodPost, path, 200, raw)
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "lacks fields") || !strings.Contains(rec.errs[0], "member.roles[0].role_id") {
		t.Fatalf("CheckAnswer on an SDK answer with dropped fields: %q", rec.errs)
	}
}

// TestBackendWireCheckCatchesADroppedField: the backend twin, on a real
// member answer of the backend face.
func TestBackendWireCheckCatchesADroppedField(t *testing.T) {
	e := apptest.New(t, apptest.SQLite(t), nil)
	org := e.CreateOrg("dropped", "ALL_ALLOWED", nil)
	mid := e.CreateMember(org, "ada@example.com")
	path := "/v1/b2b/organizations/" + org + "/member?member_id=" + mid
	r := e.Backend(http.MethodGet, path, nil)
	if r.Status != 200 {
		t.Fatalf("get member: %s", r.Raw)
	}
	if f, err := apptest.BackendWire().Audit(http.MethodGet, path, r.Body); err != nil || len(f.Missing) != 0 {
		t.Fatalf("a real member answer: missing = %v, %v", f.Missing, err)
	}
	delete(r.Body, "request_id")
	delete(r.Body["member"].(map[string]any), "email_address")
	delete(r.Body["organization"].(map[string]any), "mfa_policy")
	f, _ := apptest.BackendWire().Audit(http.MethodGet, path, r.Body)
	want := []string{"member.email_address", "organization.mfa_policy", "request_id"}
	if !slices.Equal(f.Missing, want) {
		t.Fatalf("dropped fields: missing = %v, want %v", f.Missing, want)
	}
	raw, _ := json.Marshal(r.Body)
	rec := &errRecorder{}
	apptest.CheckAnswer(rec, http.MethodGet, path, 200, raw)
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "lacks fields") || !strings.Contains(rec.errs[0], "organization.mfa_policy") {
		t.Fatalf("CheckAnswer on a backend answer with dropped fields: %q", rec.errs)
	}
}

type errRecorder struct{ errs []string }

// matching lists the recorded errors that contain s.
func (r *errRecorder) matching(s string) []string {
	var out []string
	for _, e := range r.errs {
		if strings.Contains(e, s) {
			out = append(out, e)
		}
	}
	return out
}

func (r *errRecorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
