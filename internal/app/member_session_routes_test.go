package app_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
)

// A customer's server acting for a member sends the member's session with
// the project secret. Every backend route either acts for it (a member of
// another organization is then tenancy_mismatch) or refuses it outright:
// none may ignore it and serve the call with the secret's rights in any
// organization. The route table says which routes act for it, so a route
// added anywhere is covered here without a test change.
func TestBackendRoutesActForTheMemberSessionOrRefuseIt(t *testing.T) {
	e := apptest.New(t, apptest.SQLite(t), nil)
	acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
	beta := e.CreateOrg("beta", "ALL_ALLOWED", nil)
	// A plain member of acme; every call below is about beta.
	token, jwt, _ := e.Login(acme, "pat@acme.test")
	betaMember := e.CreateVerifiedMember(beta, "bo@beta.test")

	wildcard := regexp.MustCompile(`\{[a-z_]+\}`)
	fill := func(pattern string) (method, path string) {
		method, path, _ = strings.Cut(pattern, " ")
		if strings.HasSuffix(path, "/members/{a}/{b}") {
			path = strings.TrimSuffix(path, "{a}/{b}") + "{member_id}/totp"
		}
		return method, wildcard.ReplaceAllStringFunc(path, func(w string) string {
			switch w {
			case "{organization_id}":
				return beta
			case "{member_id}":
				return betaMember
			case "{provider}":
				return "google"
			}
			return "unknown-id"
		})
	}
	// Unknown fields are ignored, so one body names beta and its member
	// wherever a route reads them from the body, and the query elsewhere.
	body := map[string]any{"organization_id": beta, "organization_ids": []string{beta}, "member_id": betaMember,
		"email_address": "newcomer@beta.test"}
	query := "?organization_id=" + beta + "&member_id=" + betaMember

	acting, refusing := 0, 0
	for i, ri := range e.App.RouteTable() {
		if ri.Face != httpapi.Backend || ri.Raw {
			continue
		}
		method, path := fill(ri.Pattern)
		var b any
		if method == http.MethodGet || method == http.MethodDelete {
			path += query
		} else {
			b = body
		}
		// Both headers, each on every other route.
		header, value := organization.MemberSessionHeader, token
		if i%2 == 1 {
			header, value = organization.MemberSessionJWTHeader, jwt
		}
		r := e.BackendAs(method, path, b, header, value)
		if ri.ForMember {
			acting++
			if r.Status != 403 || r.ErrType() != "tenancy_mismatch" {
				t.Errorf("%s acts for a member session, but a member of another organization got: %d %s", ri.Pattern, r.Status, r.Raw)
			}
			continue
		}
		refusing++
		msg, _ := r.Body["error_message"].(string)
		if r.Status != 403 || r.ErrType() != "unauthorized_action" || !strings.HasPrefix(msg, header+" is not accepted") {
			t.Errorf("%s does not act for a member session, but with %s it answered: %d %s", ri.Pattern, header, r.Status, r.Raw)
		}
	}
	// The table is the whole API: not a handful of routes.
	if acting < 30 || refusing < 60 {
		t.Fatalf("only %d backend routes act for a member session and %d refuse it", acting, refusing)
	}

	// Without the header the project secret keeps its rights.
	apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+beta, nil), 200, "")
}

// The routes the pinned Node client (stytch 14.2.0) sends the member
// session headers to, from its dist/b2b/*.js: every call whose
// method_options.authorization it passes to addAuthorizationHeaders, and no
// other. Each must be served by a route that acts for the session, or the
// client's calls acting for a member would be refused.
var nodeClientMemberSessionCalls = []string{
	"PUT /v1/b2b/organizations/o",
	"DELETE /v1/b2b/organizations/o",
	"GET /v1/b2b/organizations/o/connected_apps",
	"GET /v1/b2b/organizations/o/connected_apps/a",
	"DELETE /v1/b2b/organizations/o/external_id",
	"POST /v1/b2b/organizations/o/members",
	"PUT /v1/b2b/organizations/o/members/m",
	"DELETE /v1/b2b/organizations/o/members/m",
	"PUT /v1/b2b/organizations/o/members/m/reactivate",
	"DELETE /v1/b2b/organizations/o/members/mfa_phone_numbers/m",
	"DELETE /v1/b2b/organizations/o/members/m/totp",
	"POST /v1/b2b/organizations/members/search",
	"DELETE /v1/b2b/organizations/o/members/passwords/p",
	"POST /v1/b2b/organizations/o/members/m/unlink_retired_email",
	"POST /v1/b2b/organizations/o/members/m/start_email_update",
	"GET /v1/b2b/organizations/o/members/m/connected_apps",
	"DELETE /v1/b2b/organizations/o/members/m/external_id",
	"POST /v1/b2b/organizations/o/members/m/connected_apps/a/revoke",
	"POST /v1/b2b/magic_links/email/invite",
	"POST /v1/b2b/passwords/email/require_reset",
	"POST /v1/b2b/sessions/revoke",
	"GET /v1/b2b/sso/o",
	"DELETE /v1/b2b/sso/o/connections/c",
	"POST /v1/b2b/sso/saml/o",
	"PUT /v1/b2b/sso/saml/o/connections/c",
	"PUT /v1/b2b/sso/saml/o/connections/c/url",
	"DELETE /v1/b2b/sso/saml/o/connections/c/verification_certificates/k",
	"DELETE /v1/b2b/sso/saml/o/connections/c/encryption_private_keys/k",
	"POST /v1/b2b/sso/oidc/o",
	"PUT /v1/b2b/sso/oidc/o/connections/c",
	"POST /v1/b2b/sso/external/o",
	"PUT /v1/b2b/sso/external/o/connections/c",
	"POST /v1/b2b/scim/o/connection",
	"GET /v1/b2b/scim/o/connection",
	"PUT /v1/b2b/scim/o/connection/c",
	"DELETE /v1/b2b/scim/o/connection/c",
	"GET /v1/b2b/scim/o/connection/c",
	"POST /v1/b2b/scim/o/connection/c/rotate/start",
	"POST /v1/b2b/scim/o/connection/c/rotate/complete",
	"POST /v1/b2b/scim/o/connection/c/rotate/cancel",
}

func TestNodeClientMemberSessionCallsReachRoutesThatActForIt(t *testing.T) {
	e := apptest.New(t, apptest.SQLite(t), nil)
	// Match the calls as the server does: a mux of the table's patterns.
	mux := http.NewServeMux()
	byPattern := map[string]app.RouteInfo{}
	for _, ri := range e.App.RouteTable() {
		if ri.Face == httpapi.Backend {
			mux.Handle(ri.Pattern, http.NotFoundHandler())
			byPattern[ri.Pattern] = ri
		}
	}
	for _, call := range nodeClientMemberSessionCalls {
		method, path, _ := strings.Cut(call, " ")
		_, pattern := mux.Handler(httptest.NewRequest(method, path, nil))
		ri, ok := byPattern[pattern]
		if !ok || !ri.ForMember {
			t.Errorf("%s: served by %q, which does not act for a member session", call, pattern)
		}
	}
}
