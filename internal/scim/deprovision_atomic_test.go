package scim_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// failingDeletion fails the deletion of the member with one address while
// on (a deletion hook's error, as a busy database or a cancelled request
// would fail it).
type failingDeletion struct {
	email string
	on    atomic.Bool
}

func (f *failingDeletion) MemberDeleted(_ context.Context, _ store.Querier, m *organization.Member) error {
	if f.on.Load() && m.EmailAddress == f.email {
		return errors.New("injected deletion failure")
	}
	return nil
}

// A deprovisioning push whose member deletion fails writes nothing: not
// the attributes it carries, not the member's name, and the member stays
// active with their sessions. The identity provider, answered 500, sends
// it again; once the deletion can succeed the whole push lands.
func TestFailedDeprovisioningWritesNothing(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		hook := &failingDeletion{email: "half@acme.test"}
		hook.on.Store(true)
		e.App.Orgs.AddMemberDeletionHook(hook)

		r := do(http.MethodPost, "/Users", map[string]any{"userName": "half@acme.test", "displayName": "Old Name", "title": "Old"})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)
		session := e.SessionFor(org, "half@acme.test")
		push := patch(map[string]any{"op": "replace", "path": "displayName", "value": "New Name"},
			map[string]any{"op": "replace", "path": "title", "value": "New"},
			map[string]any{"op": "replace", "path": "active", "value": false})
		wantSCIM(t, do(http.MethodPatch, "/Users/"+uid, push), 500, "")
		u := do(http.MethodGet, "/Users/"+uid, nil)
		m := member(t, e, org, uid)
		if u.Body["displayName"] != "Old Name" || u.Body["title"] != "Old" || u.Body["active"] != true ||
			m["name"] != "Old Name" || m["status"] != "active" {
			t.Fatalf("after a failed deprovisioning: user %s; member name %v status %v", u.Raw, m["name"], m["status"])
		}
		sessionRoles(t, e, session) // still live

		hook.on.Store(false)
		wantSCIM(t, do(http.MethodPatch, "/Users/"+uid, push), 200, "")
		u = do(http.MethodGet, "/Users/"+uid, nil)
		m = member(t, e, org, uid)
		if u.Body["displayName"] != "New Name" || u.Body["title"] != "New" || u.Body["active"] != false ||
			m["name"] != "New Name" || m["status"] != "deleted" {
			t.Fatalf("after the deprovisioning: user %s; member name %v status %v", u.Raw, m["name"], m["status"])
		}
		if r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": session}); r.Status == 200 {
			t.Fatalf("a deprovisioned member's session still authenticates")
		}
	})
}

// A creation with active: false whose member deletion fails writes
// neither the new member nor the link of an existing one.
func TestFailedCreationAsInactiveWritesNothing(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		for _, email := range []string{"new@acme.test", "linked@acme.test"} {
			if email == "linked@acme.test" {
				e.CreateMember(org, email)
			}
			hook := &failingDeletion{email: email}
			hook.on.Store(true)
			e.App.Orgs.AddMemberDeletionHook(hook)
			body := map[string]any{"userName": email, "displayName": "Gone", "active": false}
			wantSCIM(t, do(http.MethodPost, "/Users", body), 500, "")
			if n := e.Count(`SELECT COUNT(*) FROM scim_registrations WHERE user_name_key = $1`, email); n != 0 {
				t.Fatalf("%s: a failed creation left %d registrations", email, n)
			}
			want := map[string]int{"new@acme.test": 0, "linked@acme.test": 1}[email]
			if n := e.Count(`SELECT COUNT(*) FROM members WHERE email_address = $1 AND status = 'active'`, email); n != want {
				t.Fatalf("%s: %d active members after a failed creation, want %d", email, n, want)
			}
			if n := e.Count(`SELECT COUNT(*) FROM members WHERE email_address = $1`, email); n != want {
				t.Fatalf("%s: %d members after a failed creation, want %d", email, n, want)
			}
			hook.on.Store(false)
			r := do(http.MethodPost, "/Users", body)
			wantSCIM(t, r, 201, "")
			if r.Body["active"] != false || member(t, e, org, r.Body["id"].(string))["status"] != "deleted" {
				t.Fatalf("%s: created with active false: %s", email, r.Raw)
			}
		}
	})
}
