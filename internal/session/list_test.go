package session_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// api-reference §5.4: the Node client's sessions.get is
// GET /v1/b2b/sessions?organization_id=&member_id=, answering
// member_sessions, the member's live sessions (B2BSessionsGetResponse).
func TestBackendSessionsGet(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		first, _, mid := e.Login(org, "grace@acme.test")
		e.Clock.Advance(time.Minute)
		second, _, _ := e.Login(org, "grace@acme.test")
		revoked, _, _ := e.Login(org, "grace@acme.test")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"session_token": revoked}), 200, "")
		e.Login(org, "other@acme.test")
		list := func(orgID, memberID string) apptest.Resp {
			q := url.Values{}
			if orgID != "" {
				q.Set("organization_id", orgID)
			}
			if memberID != "" {
				q.Set("member_id", memberID)
			}
			return e.Backend(http.MethodGet, "/v1/b2b/sessions?"+q.Encode(), nil)
		}
		idOf := func(tok string) string {
			r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": tok})
			apptest.Want(t, r, 200, "")
			return r.Body["member_session"].(map[string]any)["member_session_id"].(string)
		}

		r := list(org, mid)
		apptest.Want(t, r, 200, "")
		got, ok := r.Body["member_sessions"].([]any)
		if !ok || len(got) != 2 {
			t.Fatalf("member_sessions: %s", r.Raw)
		}
		// Newest first, each as sessions/authenticate shows it.
		for i, want := range []string{idOf(second), idOf(first)} {
			s := got[i].(map[string]any)
			if s["member_session_id"] != want || s["member_id"] != mid || s["organization_id"] != org {
				t.Errorf("session %d = %v, want %s", i, s, want)
			}
			if s["organization_slug"] != "acme" || len(s["roles"].([]any)) == 0 || len(s["authentication_factors"].([]any)) != 1 {
				t.Errorf("session %d lacks its slug, roles or factors: %v", i, s)
			}
			for _, f := range []string{"started_at", "last_accessed_at", "expires_at"} {
				if _, ok := s[f].(string); !ok {
					t.Errorf("session %d lacks %s: %v", i, f, s)
				}
			}
		}

		t.Run("expired sessions are not listed", func(t *testing.T) {
			e.Clock.Advance(24 * time.Hour)
			r := list(org, mid)
			apptest.Want(t, r, 200, "")
			if got := r.Body["member_sessions"].([]any); len(got) != 0 {
				t.Fatalf("expired sessions listed: %s", r.Raw)
			}
		})
		t.Run("refusals", func(t *testing.T) {
			apptest.Want(t, list("", mid), 400, "invalid_request")
			apptest.Want(t, list(org, ""), 400, "invalid_request")
			apptest.Want(t, list("organization-test-nope", mid), 404, "organization_not_found")
			apptest.Want(t, list(org, "member-test-nope"), 404, "member_not_found")
			other := e.CreateOrg("initech", "ALL_ALLOWED", nil)
			apptest.Want(t, list(other, mid), 404, "member_not_found")
		})
	})
}
