package sso_test

import (
	"context"
	"encoding/json"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
)

// tokenTap sits in front of mockoidc's token endpoint: it notes the
// refresh token each answer carries and, while drop is set, removes it
// from the answer, as Google does at logins after the first consent.
type tokenTap struct {
	mu      sync.Mutex
	drop    bool
	refresh string // the last answer's refresh token, as the client got it
}

func (tap *tokenTap) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != mockoidc.TokenEndpoint {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		var answer map[string]any
		if rec.Code == http.StatusOK && json.Unmarshal(body, &answer) == nil {
			tap.mu.Lock()
			if tap.drop {
				delete(answer, "refresh_token")
			}
			tap.refresh, _ = answer["refresh_token"].(string)
			tap.mu.Unlock()
			body, _ = json.Marshal(answer)
		}
		maps.Copy(w.Header(), rec.Header())
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

func (tap *tokenTap) set(drop bool) {
	tap.mu.Lock()
	defer tap.mu.Unlock()
	tap.drop = drop
}

func (tap *tokenTap) last() string {
	tap.mu.Lock()
	defer tap.mu.Unlock()
	return tap.refresh
}

// oidcLogin logs the user in through the OIDC connection and returns the
// member's id.
func oidcLogin(t *testing.T, s *oidcEnv, subject, email string) string {
	t.Helper()
	user := &mockoidc.MockUser{Subject: subject, Email: email, EmailVerified: true}
	r := s.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": tokenFrom(t, s.login(user, nil))})
	apptest.Want(t, r, 200, "")
	return r.Body["member_id"].(string)
}

// oidcTokens reads the member's one OIDC registration's access and refresh
// tokens through the backend.
func oidcTokens(t *testing.T, s *oidcEnv, memberID string) (access, refresh string) {
	t.Helper()
	r := s.Backend(http.MethodGet, "/v1/b2b/organizations/"+s.orgID+"/members/"+memberID+"/oidc_providers?include_refresh_token=true", nil)
	apptest.Want(t, r, 200, "")
	regs, _ := r.Body["registrations"].([]any)
	if len(regs) != 1 {
		t.Fatalf("registrations: %s", r.Raw)
	}
	reg := regs[0].(map[string]any)
	access, _ = reg["access_token"].(string)
	refresh, _ = reg["refresh_token"].(string)
	return access, refresh
}

// An OIDC login whose answer has no refresh token keeps the one stored
// before, with its own access token; a later login that brings one
// replaces it.
func TestOIDCRefreshTokenKeptAcrossLogins(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		tap := &tokenTap{}
		op, err := mockoidc.NewServer(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := op.AddMiddleware(tap.middleware); err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if err := op.Start(ln, nil); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = op.Shutdown() })
		s := newOIDCEnvOn(t, e, op)

		mid := oidcLogin(t, s, "oidc-sub-1", "lin@acme.test")
		access1, refresh1 := oidcTokens(t, s, mid)
		if refresh1 == "" || refresh1 != tap.last() {
			t.Fatalf("first login: refresh %q, the provider issued %q", refresh1, tap.last())
		}

		tap.set(true)
		oidcLogin(t, s, "oidc-sub-1", "lin@acme.test")
		if tap.last() != "" {
			t.Fatal("the provider's second answer still carried a refresh token")
		}
		access2, refresh2 := oidcTokens(t, s, mid)
		if access2 == "" || access2 == access1 || refresh2 != refresh1 {
			t.Fatalf("a login without a refresh token: access changed %v, refresh %q (want the first, %q)",
				access2 != access1, refresh2, refresh1)
		}

		tap.set(false)
		oidcLogin(t, s, "oidc-sub-1", "lin@acme.test")
		if _, refresh3 := oidcTokens(t, s, mid); refresh3 == refresh1 || refresh3 != tap.last() {
			t.Fatalf("a login with a new refresh token: stored %q, issued %q, first %q", refresh3, tap.last(), refresh1)
		}
	})
}

// Deleting a member clears the provider tokens of their SSO registrations
// in the deletion, and oidc_providers refuses the deleted member as
// inactive_member. A reactivated member's registration is listed without
// tokens until they log in again. Other members' tokens are left alone.
func TestOIDCProviderTokensEndWithMemberDeletion(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		mid := oidcLogin(t, s, "oidc-sub-1", "lin@acme.test")
		other := oidcLogin(t, s, "oidc-sub-2", "max@acme.test")
		if access, refresh := oidcTokens(t, s, mid); access == "" || refresh == "" {
			t.Fatalf("before the deletion: %q %q", access, refresh)
		}

		e.DeleteMember(s.orgID, mid)
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+s.orgID+"/members/"+mid+"/oidc_providers?include_refresh_token=true", nil),
			403, "inactive_member")
		var stored string
		if err := e.App.DB.Read().QueryRowContext(context.Background(), `SELECT tokens FROM sso_registrations
			WHERE member_id = $1`, mid).Scan(&stored); err != nil || stored != "" {
			t.Fatalf("deleted member's stored tokens %q (%v)", stored, err)
		}
		if access, refresh := oidcTokens(t, s, other); access == "" || refresh == "" {
			t.Fatalf("another member's tokens went with the deletion: %q %q", access, refresh)
		}

		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+s.orgID+"/members/"+mid+"/reactivate", nil), 200, "")
		if access, refresh := oidcTokens(t, s, mid); access != "" || refresh != "" {
			t.Fatalf("reactivation brought tokens back: %q %q", access, refresh)
		}
		oidcLogin(t, s, "oidc-sub-1", "lin@acme.test")
		if access, refresh := oidcTokens(t, s, mid); access == "" || refresh == "" {
			t.Fatalf("a login after the reactivation: %q %q", access, refresh)
		}
	})
}

// Members deleted before deletions cleared provider tokens kept theirs:
// sso/0005 clears them, and leaves those of members who are not deleted.
func TestDeletedMemberTokensMigration(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		s := newOIDCEnv(t, e)
		mid := oidcLogin(t, s, "oidc-sub-1", "lin@acme.test")
		other := oidcLogin(t, s, "oidc-sub-2", "max@acme.test")
		// A deletion as it was: the status alone.
		if _, err := e.App.DB.ExecContext(ctx, `UPDATE members SET status = $1 WHERE member_id = $2`, "deleted", mid); err != nil {
			t.Fatal(err)
		}
		if _, err := e.App.DB.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version = $1`, "sso/0005"); err != nil {
			t.Fatal(err)
		}
		if err := e.App.DB.Migrate(ctx, app.Migrations()...); err != nil {
			t.Fatal(err)
		}
		for id, want := range map[string]bool{mid: false, other: true} {
			var stored string
			if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT tokens FROM sso_registrations WHERE member_id = $1`, id).
				Scan(&stored); err != nil {
				t.Fatal(err)
			}
			if (stored != "") != want {
				t.Errorf("member %s has tokens %v after the migration, want %v", id, stored != "", want)
			}
		}
	})
}
