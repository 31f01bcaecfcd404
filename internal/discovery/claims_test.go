package discovery_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// TestDiscoveryLoginsTakeCustomClaims: the discovery routes that start a
// session store the backend's session_custom_claims on it, refuse bad
// ones before spending the IST, and take none on the SDK face.
func TestDiscoveryLoginsTakeCustomClaims(t *testing.T) {
	bad := map[string]any{"https://stytch.com/session": map[string]any{"id": "x"}}
	routes := []struct {
		name string
		// login starts a session for ada@corp.test, a member of org, on
		// the backend face (sdk false) or the SDK face.
		login func(e *apptest.Env, org string, claims any, sdk bool) apptest.Resp
	}{
		{"intermediate_sessions/exchange", func(e *apptest.Env, org string, claims any, sdk bool) apptest.Resp {
			ist := e.Discover("ada@corp.test")["intermediate_session_token"]
			exchange := func(claims any) apptest.Resp {
				return post(e, sdk, "b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": ist,
					"organization_id": org, "session_custom_claims": claims}, "")
			}
			if !sdk {
				apptest.Want(e.T, exchange(bad), 400, "stytch_claims_in_custom_claims")
			}
			return exchange(claims)
		}},
		{"organizations/create", func(e *apptest.Env, _ string, claims any, sdk bool) apptest.Resp {
			ist := e.Discover("ada@startup.test")["intermediate_session_token"]
			create := func(claims any) apptest.Resp {
				return post(e, sdk, "b2b/discovery/organizations/create", map[string]any{"intermediate_session_token": ist,
					"session_custom_claims": claims}, "")
			}
			if !sdk {
				apptest.Want(e.T, create(bad), 400, "stytch_claims_in_custom_claims")
			}
			return create(claims)
		}},
		{"sessions/exchange", func(e *apptest.Env, org string, claims any, sdk bool) apptest.Resp {
			home := e.CreateOrg("home-co", "NOT_ALLOWED", nil)
			e.CreateMember(home, "ada@corp.test")
			token, _ := e.LoginByEmailOTP(home, "ada@corp.test")
			// The session being left has claims of its own: they stay with it.
			apptest.Want(e.T, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token,
				"session_custom_claims": map[string]any{"team": "red"}}), 200, "")
			exchange := func(claims any) apptest.Resp {
				body := map[string]any{"organization_id": org, "session_custom_claims": claims}
				if !sdk {
					body["session_token"] = token
				}
				return post(e, sdk, "b2b/sessions/exchange", body, token)
			}
			if !sdk {
				apptest.Want(e.T, exchange(bad), 400, "stytch_claims_in_custom_claims")
			}
			return exchange(claims)
		}},
	}
	for _, rt := range routes {
		t.Run(rt.name+"/backend", func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				org := e.CreateOrg("corp", "NOT_ALLOWED", nil)
				e.CreateMember(org, "ada@corp.test")
				r := rt.login(e, org, map[string]any{"plan": "pro", "jti": "x", "gone": nil}, false)
				apptest.Want(t, r, 200, "")
				e.WantLoginClaims(t, r.Body, map[string]any{"plan": "pro"})
			})
		})
		t.Run(rt.name+"/sdk", func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				org := e.CreateOrg("corp", "NOT_ALLOWED", nil)
				e.CreateMember(org, "ada@corp.test")
				r := rt.login(e, org, map[string]any{"admin": true}, true)
				apptest.Want(t, r, 200, "")
				e.WantLoginClaims(t, r.Data(), map[string]any{})
			})
		})
	}
}

// post calls path on the backend face, or on the SDK face with the
// session token sdkSession ("" for none).
func post(e *apptest.Env, sdk bool, path string, body map[string]any, sdkSession string) apptest.Resp {
	if sdk {
		return e.SDK(http.MethodPost, "/"+path, body, sdkSession)
	}
	return e.Backend(http.MethodPost, "/v1/"+path, body)
}
