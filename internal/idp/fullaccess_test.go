package idp_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// setApp writes a connected app's column directly, as a row stored before
// a validation existed (or changed behind the API) would be.
func setApp(t *testing.T, e *apptest.Env, clientID, column string, v any) {
	t.Helper()
	if _, err := e.App.DB.ExecContext(context.Background(),
		`UPDATE idp_connected_apps SET `+column+` = $1 WHERE client_id = $2`, v, clientID); err != nil {
		t.Fatal(err)
	}
}

func exchangeAccessToken(e *apptest.Env, at any) apptest.Resp {
	return e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange_access_token", map[string]any{"access_token": at})
}

// full_access is for first-party apps only: a third-party app whose row
// says full_access_allowed (the API refuses to store it now; older rows
// may) is not granted the scope (the rest of the request is), and a
// full_access token of an app that
// is not, or no longer, a first-party app allowed full access is not
// exchanged for a session.
func TestFullAccessIsForFirstPartyAppsOnly(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		third, thirdSecret := f.client("third_party", nil)
		setApp(t, e, third, "full_access_allowed", true)
		r := e.SDK("POST", "/idp/b2b/oauth/authorize/start", authReq(third, "openid", "full_access"), f.session)
		apptest.Want(t, r, 200, "")
		if res := r.Data()["scope_results"].([]any)[1].(map[string]any); res["scope"] != "full_access" || res["is_grantable"] != false {
			t.Fatalf("a third-party app is offered full_access: %s", r.Raw)
		}
		if tok := f.grant(third, thirdSecret, "openid", "full_access"); tok.Body["scope"] != "openid" {
			t.Fatalf("a third-party app was granted full_access: %s", tok.Raw)
		}

		// A token minted while the app was a first-party app allowed full
		// access is refused once it is neither.
		id, secret := f.client("first_party", map[string]any{"full_access_allowed": true})
		at := f.grant(id, secret, "openid", "full_access").Body["access_token"]
		setApp(t, e, id, "client_type", "third_party")
		r = exchangeAccessToken(e, at)
		apptest.Want(t, r, 403, "oauth_access_token_exchange_missing_full_access")
		if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, "first-party") {
			t.Fatalf("the refusal does not say why: %s", r.Raw)
		}
		setApp(t, e, id, "client_type", "first_party")
		apptest.Want(t, exchangeAccessToken(e, at), 200, "")

		// Turned off after the token was issued: refused too.
		at = f.grant(id, secret, "openid", "full_access").Body["access_token"]
		apptest.Want(t, e.Backend("PUT", "/v1/connected_apps/clients/"+id, map[string]any{"full_access_allowed": false}), 200, "")
		apptest.Want(t, exchangeAccessToken(e, at), 403, "oauth_access_token_exchange_missing_full_access")
	})
}

// A refresh after the operator turned full_access_allowed off issues
// tokens without full_access (the rest of the grant stays), so the app's
// next access token cannot become a session; turning it on again does not
// bring the scope back to the family, whose grant was narrowed.
func TestRefreshDropsFullAccessOnceDisallowed(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("first_party", map[string]any{"full_access_allowed": true})
		tok := f.grant(id, secret, "openid", "offline_access", "full_access")
		rt := tok.Body["refresh_token"].(string)
		apptest.Want(t, e.Backend("PUT", "/v1/connected_apps/clients/"+id, map[string]any{"full_access_allowed": false}), 200, "")
		r := f.refresh(id, secret, rt, "")
		apptest.Want(t, r, 200, "")
		if r.Body["scope"] != "openid offline_access" {
			t.Fatalf("scope after full_access_allowed=false: %q", r.Body["scope"])
		}
		if scope, _ := f.claims(r.Body["access_token"].(string))["scope"].(string); slices.Contains(strings.Fields(scope), "full_access") {
			t.Fatalf("access token scope %q", scope)
		}
		apptest.Want(t, exchangeAccessToken(e, r.Body["access_token"]), 403, "oauth_access_token_exchange_missing_full_access")

		apptest.Want(t, e.Backend("PUT", "/v1/connected_apps/clients/"+id, map[string]any{"full_access_allowed": true}), 200, "")
		r = f.refresh(id, secret, r.Body["refresh_token"].(string), "")
		apptest.Want(t, r, 200, "")
		if r.Body["scope"] != "openid offline_access" {
			t.Fatalf("full_access came back to a narrowed family: %q", r.Body["scope"])
		}
	})
}
