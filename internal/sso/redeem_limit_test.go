package sso_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
)

// SSO token redemptions fail-count per client address and project: on the
// backend face not at all (the customer's server redeems for all its
// users, and a visitor can make it relay stale tokens), and on the SDK
// face one project's failures from an address leave another project's
// users at that address alone.
func TestSSORedeemFailuresCountPerEndUserAddressAndProject(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		redeem := func(face func(token string) apptest.Resp, n int, want string) {
			t.Helper()
			for i := range n {
				if r := face(fmt.Sprintf("stale-%d", i)); r.ErrType() != want {
					t.Fatalf("redemption %d: %d %s, want %s", i+1, r.Status, r.Raw, want)
				}
			}
		}
		backend := func(token string) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": token})
		}
		redeem(backend, flowtoken.RedeemLimit.Limit+1, "sso_token_not_found")

		sdk := func(token string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token}, "")
		}
		other := e.NewProject("Other")
		otherSDK := func(token string) apptest.Resp {
			return e.Do(http.MethodPost, "/sdk/v1/b2b/sso/authenticate", map[string]any{"sso_token": token},
				http.Header{"Origin": {apptest.Origin}}, other.PublicToken, other.PublicToken)
		}
		redeem(sdk, flowtoken.RedeemLimit.Limit, "sso_token_not_found")
		redeem(sdk, 1, "too_many_requests")
		redeem(otherSDK, 1, "sso_token_not_found")
	})
}

// A connection's callback knows its project, and its state redemptions
// fail-count per project and client address: stale states sent to another
// project's connection from a shared address (a NAT, an IPv6 /64) leave
// this project's logins from that address alone. The allowance is checked
// before the state (flowtoken.Redeem), so counted together they would
// refuse even a valid login.
func TestSSOCallbackFailuresCountPerProject(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		elsewhere := *e // the same server, another project
		elsewhere.Project = e.NewProject("Other")
		other := newOIDCEnv(t, &elsewhere)
		for range flowtoken.RedeemLimit.Limit {
			wantPage(t, e.Get("/v1/b2b/sso/callback/"+other.connID+"?code=x&state=stale"), 400, "unsolicited_oidc_response")
		}
		tokenFrom(t, s.login(&mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test", EmailVerified: true}, nil))
	})
}
