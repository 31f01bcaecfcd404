package sso_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/sso"
)

// api-reference §5.4: GET /v1/b2b/organizations/{organization_id}/members/
// {member_id}/oidc_providers (the Node client's members.oidcProviders)
// answers the provider tokens of the member's OIDC SSO logins as
// registrations[] of OIDCProviderInfo. Each login keeps its tokens on the
// registration, sealed at rest for the row; refresh tokens only with
// include_refresh_token=true, as for oauth_providers.
func TestOIDCProviderTokensServedAndSealed(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		if !containsColumn(app.SealedColumns(), sso.TokensColumn) {
			t.Fatal("SSO registration tokens are not among app.SealedColumns")
		}
		s := newOIDCEnv(t, e)
		login := func() string {
			user := &mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test", EmailVerified: true}
			r := e.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": tokenFrom(t, s.login(user, nil))})
			apptest.Want(t, r, 200, "")
			return r.Body["member_id"].(string)
		}
		mid := login()
		path := "/v1/b2b/organizations/" + s.orgID + "/members/" + mid + "/oidc_providers"
		providers := func(query string) map[string]any {
			t.Helper()
			r := e.Backend(http.MethodGet, path+query, nil)
			apptest.Want(t, r, 200, "")
			regs, ok := r.Body["registrations"].([]any)
			if !ok || len(regs) != 1 {
				t.Fatalf("registrations: %s", r.Raw)
			}
			return regs[0].(map[string]any)
		}

		reg := providers("")
		if reg["connection_id"] != s.connID || reg["provider_subject"] != "oidc-sub-1" {
			t.Errorf("registration names %v / %v", reg["connection_id"], reg["provider_subject"])
		}
		access, _ := reg["access_token"].(string)
		if access == "" || !(reg["access_token_expires_in"].(float64) > 0) {
			t.Errorf("access token: %v", reg)
		}
		if sub := jwtSubject(t, reg["id_token"]); sub != "oidc-sub-1" {
			t.Errorf("id_token subject %q", sub)
		}
		scopes, _ := reg["scopes"].([]any)
		if !slices.Contains(scopes, any("openid")) {
			t.Errorf("scopes %v", reg["scopes"])
		}
		if _, ok := reg["refresh_token"]; ok {
			t.Errorf("refresh_token without include_refresh_token: %v", reg)
		}
		refresh, _ := providers("?include_refresh_token=true")["refresh_token"].(string)
		if refresh == "" {
			t.Error("no refresh_token with include_refresh_token=true")
		}

		var regID, stored string
		if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT registration_id, tokens FROM sso_registrations
			WHERE member_id = $1`, mid).Scan(&regID, &stored); err != nil {
			t.Fatal(err)
		}
		plain, err := sso.TokensColumn.OpenStored(e.App.Box, regID, stored)
		if err != nil || !secretbox.IsSealed(stored) || strings.Contains(stored, access) || !strings.Contains(plain, access) {
			t.Fatalf("tokens at rest are not sealed for their row: %v", err)
		}

		// The next login's tokens replace them.
		if login() != mid {
			t.Fatal("second login found another member")
		}
		if again := providers("")["access_token"]; again == access {
			t.Error("a second login kept the first login's access token")
		}

		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+s.orgID+"/members/member-test-nope/oidc_providers", nil), 404, "member_not_found")
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/organization-test-nope/members/"+mid+"/oidc_providers", nil), 404, "organization_not_found")
		other := e.CreateMember(s.orgID, "nobody@acme.test")
		r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+s.orgID+"/members/"+other+"/oidc_providers", nil)
		apptest.Want(t, r, 200, "")
		if regs, ok := r.Body["registrations"].([]any); !ok || len(regs) != 0 {
			t.Fatalf("member without OIDC logins: %s", r.Raw)
		}
	})
}

// jwtSubject is the sub claim of a JWT (unverified: the server verified it).
func jwtSubject(t *testing.T, v any) string {
	t.Helper()
	s, _ := v.(string)
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", s)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Sub string `json:"sub"`
	}
	if err := json.Unmarshal(raw, &claims); err != nil {
		t.Fatal(err)
	}
	return claims.Sub
}
