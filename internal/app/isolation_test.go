package app_test

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
)

// crossTenantRoutes take no tenant's id, or take one that is public by
// design: the sweep does not aim foreign credentials at them.
var crossTenantRoutes = map[string]string{
	"GET /sdk/v1/projects/bootstrap/{public_token}":                          "a project's public configuration, read with its public token by any page",
	"POST /sdk/v1/events":                                                    "telemetry, names its project per event and reads no tenant's data",
	"GET /v1/b2b/sessions/jwks/{project_id}":                                 "a project's public signing keys",
	"GET /v1/b2b/sso/saml/metadata/{connection_id}":                          "SAML SP metadata is published for the IdP to fetch unauthenticated",
	"GET /v1/b2b/sso/callback/{connection_id}":                               "IdP's browser callback; authenticated by the assertion/state, not by a credential",
	"POST /v1/b2b/sso/callback/{connection_id}":                              "IdP's browser callback; authenticated by the assertion/state, not by a credential",
	"GET /v1/public/sso/start":                                               "browser redirect to the org's IdP, started with the public token",
	"GET /v1/b2b/public/oauth/{provider}/start":                              "browser redirect to the OAuth provider, started with the public token",
	"GET /v1/b2b/public/oauth/{provider}/discovery/start":                    "browser redirect to the OAuth provider, started with the public token",
	"GET /v1/b2b/public/oauth/callback":                                      "OAuth provider's browser callback, bound to its state cookie",
	"GET /v1/public/{project_id}/oauth2/end_session":                         "browser logout: ends only the browser's own session",
	"POST /v1/public/{project_id}/oauth2/end_session":                        "browser logout: ends only the browser's own session",
	"GET /v1/public/{project_id}/oauth2/logged_out":                          "static logged-out page",
	"GET /v1/public/{project_id}/.well-known/openid-configuration":           "public discovery document",
	"OPTIONS /v1/public/{project_id}/.well-known/openid-configuration":       "CORS preflight",
	"GET /v1/public/{project_id}/.well-known/oauth-authorization-server":     "public discovery document",
	"OPTIONS /v1/public/{project_id}/.well-known/oauth-authorization-server": "CORS preflight",
	"GET /.well-known/oauth-authorization-server/v1/public/{project_id}":     "public discovery document",
	"OPTIONS /.well-known/oauth-authorization-server/v1/public/{project_id}": "CORS preflight",
	"GET /.well-known/openid-configuration/v1/public/{project_id}":           "public discovery document",
	"OPTIONS /.well-known/openid-configuration/v1/public/{project_id}":       "CORS preflight",
	"GET /v1/public/{project_id}/.well-known/jwks.json":                      "a project's public signing keys",
	"OPTIONS /v1/public/{project_id}/.well-known/jwks.json":                  "CORS preflight",
	"OPTIONS /v1/public/{project_id}/oauth2/token":                           "CORS preflight",
	"OPTIONS /v1/public/{project_id}/oauth2/userinfo":                        "CORS preflight",
	"OPTIONS /v1/public/{project_id}/oauth2/introspect":                      "CORS preflight",
	"OPTIONS /v1/public/{project_id}/oauth2/revoke":                          "CORS preflight",
	"GET /v1/b2b/scim/{connection_id}/ServiceProviderConfig":                 "SCIM's fixed capability document",
	"GET /v1/b2b/scim/{connection_id}/ResourceTypes":                         "SCIM's fixed resource types",
	"GET /v1/b2b/scim/{connection_id}/Schemas":                               "SCIM's fixed schemas",
	"GET /v1/b2b/scim/{connection_id}/Schemas/{id}":                          "SCIM's fixed schemas",
}

// anonymousRoutes need only the project's public token: for them another
// organization's member of the same project is any visitor of the login
// page, who may start a login to the victim's address (the one-time
// token it writes, the failed attempt it counts are the flow's own) and
// read what the login screens show. Project B's credentials get no such
// leeway on them.
var anonymousRoutes = map[string]string{
	"POST /sdk/v1/b2b/organizations/search":              "organization.getBySlug: the login page's organization by slug (api-reference §7)",
	"POST /sdk/v1/b2b/organizations/members/search":      "the password screen's member lookup by address and organization (api-reference §7, internal)",
	"POST /sdk/v1/b2b/magic_links/email/login_or_signup": "login start: emails the address a link",
	"POST /sdk/v1/b2b/otps/email/login_or_signup":        "login start: emails the address a code",
	"POST /sdk/v1/b2b/passwords/email/reset/start":       "reset start: emails the address a link",
	"POST /sdk/v1/b2b/passwords/authenticate":            "a failed password login counts against the address",
	"POST /sdk/v1/b2b/passwords/existing_password/reset": "a failed password check counts against the address",
	"POST /sdk/v1/b2b/passwords/discovery/authenticate":  "a failed password login counts against the address",
	"POST /sdk/v1/b2b/passwords/discovery/reset/start":   "discovery reset start: emails the address a link",
	"POST /sdk/v1/b2b/magic_links/email/discovery/send":  "discovery start: emails the address a link",
	"POST /sdk/v1/b2b/otps/email/discovery/send":         "discovery start: emails the address a code",
	"POST /sdk/v1/b2b/otps/email/discovery/authenticate": "a wrong code counts against the address's pending code",
	"POST /sdk/v1/b2b/otps/email/authenticate":           "a wrong code counts against the address's pending code",
}

// isoCred is one foreign credential: how it signs a request and where its
// requests are aimed.
type isoCred struct {
	name  string
	apply func(h http.Header)
	// own is the intruder's SCIM connection, set when the path's
	// {connection_id} is the intruder's own and only {id} is the victim's.
	own string
}

// isoReq is one request of the sweep.
type isoReq struct {
	route  app.RouteInfo
	cred   string
	method string
	path   string
	header http.Header
	body   any
}

var isoWildcard = regexp.MustCompile(`\{([^}]+)\}`)

// TestTenantIsolationSweep aims, at every route of the route table that
// reads a tenant's ids, the credentials of other tenants with the ids of
// one victim (organization A of project A, and project A's project-wide
// objects): project B's secret and public token, an admin session of
// another organization of project A on the SDK face and as the backend's
// member session header, another organization's (and project B's) SCIM
// bearer token, and project B's M2M client and access token at project
// A's OAuth endpoints. No answer may be a 2xx (but for the few ownScoped
// routes, which act on the caller's own tenant), each is a catalogue
// error (or SCIM's / RFC 6749's shape on those protocols), none carries
// the victim's data, and no row of the victim changes. A route added
// anywhere is swept without a test change.
func TestTenantIsolationSweep(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		v := newVictim(t, e)
		pb := e.NewProject("Project B")
		mallory := &intruder{env: e}     // another organization of project A
		bob := &intruder{env: as(e, pb)} // project B
		mallory.ensure(t, "mallory", false)
		bob.ensure(t, "bob", true)
		before := snapshot(t, e.App.DB, v)
		// The snapshot must see the victim, or it would prove nothing.
		for _, tb := range []string{"organizations", "members", "member_sessions", "member_passwords", "sso_connections",
			"scim_connections", "scim_registrations", "rbac_policies", "projects"} {
			if len(before[tb]) == 0 {
				t.Fatalf("the snapshot holds none of the victim's %s", tb)
			}
		}

		type outcome struct{ status, errType string }
		seen := map[string]map[string]outcome{} // route -> cred -> answer
		swept := 0
		for _, rt := range e.App.RouteTable() {
			if _, ok := crossTenantRoutes[rt.Pattern]; ok || !sweepable(rt) {
				continue
			}
			mallory.ensure(t, "mallory", false)
			bob.ensure(t, "bob", true)
			reqs := isoRequests(rt, v, mallory, bob)
			if len(reqs) == 0 {
				continue
			}
			swept++
			for _, req := range reqs {
				r := e.Do(req.method, req.path, req.body, req.header, "", "")
				if seen[rt.Pattern] == nil {
					seen[rt.Pattern] = map[string]outcome{}
				}
				seen[rt.Pattern][req.cred] = outcome{fmt.Sprint(r.Status), r.ErrType()}
				if p := isoProblem(rt, req, r); p != "" {
					t.Errorf("%s as %s (%s %s): %s", rt.Pattern, req.cred, req.method, trunc(req.path, 160), p)
				}
				after := snapshot(t, e.App.DB, v)
				_, anon := anonymousRoutes[rt.Pattern]
				if d := changed(before, after); d != "" && anon && sameProject(req.cred) {
					before = after
				} else if d != "" {
					t.Errorf("%s as %s (%s %s) changed the victim's data (answer %d %s):\n%s",
						rt.Pattern, req.cred, req.method, trunc(req.path, 160), r.Status, trunc(string(r.Raw), 200), d)
					before = after
				}
			}
		}
		if swept < 150 {
			t.Errorf("the sweep reached %d routes, want at least 150", swept)
		}
		// The answers, one line a route, for the report: Stytch answers a
		// foreign id as not found, so a 403 shows where a route differs.
		for _, p := range slices.Sorted(maps.Keys(seen)) {
			var parts []string
			for _, c := range slices.Sorted(maps.Keys(seen[p])) {
				o := seen[p][c]
				parts = append(parts, c+"="+o.status+" "+o.errType)
			}
			t.Logf("ISO %s: %s", p, strings.Join(parts, "; "))
		}
		t.Logf("isolation sweep: %d routes", swept)
	})
}

// sweepable says whether a route can be reached with a tenant's
// credential: the API faces, and the raw SCIM and OAuth 2.0 endpoints.
func sweepable(rt app.RouteInfo) bool {
	_, path, _ := strings.Cut(rt.Pattern, " ")
	switch {
	case rt.Raw:
		return strings.HasPrefix(path, "/v1/b2b/scim/{connection_id}/") || strings.HasPrefix(path, "/v1/public/{project_id}/oauth2/")
	case rt.Face == httpapi.SDK, rt.Face == httpapi.Backend:
		return true
	}
	return false
}

// isoRequests builds the requests of one route: each foreign credential
// that applies to its face, with the victim's ids in its path, body and
// query.
func isoRequests(rt app.RouteInfo, v *victim, mallory, bob *intruder) []isoReq {
	method, pattern, _ := strings.Cut(rt.Pattern, " ")
	origin := func(h http.Header) { h.Set("Origin", apptest.Origin) }
	basicAuth := func(user, pass string) func(http.Header) {
		return func(h http.Header) { h.Set("Authorization", basic(user, pass)) }
	}
	bearer := func(tok string) func(http.Header) {
		return func(h http.Header) { h.Set("Authorization", "Bearer "+tok) }
	}
	with := func(fs ...func(http.Header)) func(http.Header) {
		return func(h http.Header) {
			for _, f := range fs {
				f(h)
			}
		}
	}
	pb := bob.env.Project
	var creds []isoCred
	var bodies []any
	form := false
	switch {
	case strings.HasPrefix(pattern, "/v1/b2b/scim/{connection_id}/"):
		creds = []isoCred{
			{name: "scim-other-org", apply: bearer(mallory.scimToken)},
			{name: "scim-other-project", apply: bearer(bob.scimToken)},
			{name: "scim-victim-token-other-conn", apply: bearer(v.scimToken), own: mallory.scim},
		}
		if strings.Contains(pattern, "{id}") {
			creds = append(creds, isoCred{name: "scim-other-org-own-conn", apply: bearer(mallory.scimToken), own: mallory.scim})
		}
		bodies = []any{map[string]any{"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:User"}, "userName": "x@victim.test",
			"displayName": "x", "active": false,
			"Operations": []any{map[string]any{"op": "replace", "path": "active", "value": false}}}}
	case strings.HasPrefix(pattern, "/v1/public/{project_id}/oauth2/"):
		form = true
		switch {
		case strings.HasSuffix(pattern, "/userinfo"):
			creds = []isoCred{{name: "oauth-other-project-token", apply: bearer(bob.token)}}
		default:
			creds = []isoCred{{name: "oauth-other-project-client", apply: basicAuth(bob.m2m, bob.m2mSecret)}}
		}
		bodies = []any{url.Values{"grant_type": {"client_credentials"}, "token": {v.m2mToken}, "client_id": {bob.m2m}}.Encode()}
	case rt.Face == httpapi.SDK:
		creds = []isoCred{
			{name: "sdk-other-org", apply: with(basicAuth(v.project.PublicToken, mallory.session), origin)},
			{name: "sdk-other-project", apply: with(basicAuth(pb.PublicToken, bob.session), origin)},
			{name: "sdk-other-project-victim-session", apply: with(basicAuth(pb.PublicToken, v.adminSession), origin)},
		}
		bodies = isoBodies(v)
	case rt.Face == httpapi.Backend:
		creds = []isoCred{
			{name: "backend-other-project", apply: basicAuth(pb.Project.ID, pb.Secret)},
			{name: "backend-victim-id-other-secret", apply: basicAuth(v.project.Project.ID, pb.Secret)},
		}
		if rt.ForMember {
			creds = append(creds,
				isoCred{name: "backend-other-org-member-session", apply: with(basicAuth(v.project.Project.ID, v.project.Secret),
					func(h http.Header) { h.Set(organization.MemberSessionHeader, mallory.session) })},
				isoCred{name: "backend-other-org-member-jwt", apply: with(basicAuth(v.project.Project.ID, v.project.Secret),
					func(h http.Header) { h.Set(organization.MemberSessionJWTHeader, mallory.jwt) })})
		}
		bodies = isoBodies(v)
	}
	var out []isoReq
	for _, c := range creds {
		for _, path := range isoPaths(pattern, v, c.own) {
			h := http.Header{}
			c.apply(h)
			if form {
				h.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			if method == http.MethodGet || method == http.MethodDelete || method == http.MethodOptions {
				p := path
				if !form {
					p += "?" + isoQuery(v)
				}
				var b any
				if strings.Contains(pattern, "/scim/{connection_id}/") {
					b = bodies[0]
				}
				out = append(out, isoReq{route: rt, cred: c.name, method: method, path: p, header: h, body: b})
				continue
			}
			for _, b := range bodies {
				out = append(out, isoReq{route: rt, cred: c.name, method: method, path: path, header: h, body: b})
			}
		}
	}
	return out
}

// isoBodies name the victim wherever a handler may read an id from a body:
// unknown fields are ignored, so one body of ids serves every route; the
// victim's session token and JWT go alone, since a route refuses a body
// naming several sessions before it looks any up.
func isoBodies(v *victim) []any {
	return []any{isoIDs(v), map[string]any{"session_token": v.adminSession}, map[string]any{"session_jwt": v.adminJWT},
		map[string]any{"intermediate_session_token": v.adminSession, "organization_id": v.org}}
}

func isoIDs(v *victim) map[string]any {
	return map[string]any{
		"organization_id": v.org, "organization_ids": []string{v.org}, "organization_slug": "victim",
		"member_id": v.member, "member_ids": []string{v.member}, "email_address": v.memberEmail,
		"connection_id": v.saml, "client_id": v.m2m, "token": v.m2mToken, "member_password_id": v.passwordID,
		"org_policy": map[string]any{"roles": []any{}}, "connected_app_id": v.app,
		"password": "not the victim's password 9!", "existing_password": "not the victim's password 9!",
		"new_password": "a whole new canary horse 77!", "name": "Pwned", "organization_name": "Pwned",
		"display_name": "Pwned", "client_name": "Pwned", "is_breakglass": true, "roles": []string{"stytch_admin"},
		"session_duration_minutes": 60, "login_redirect_url": apptest.Page, "signup_redirect_url": apptest.Page,
		"reset_password_redirect_url": apptest.Page, "invite_redirect_url": apptest.Page,
		"redirect_uri": apptest.Page, "response_type": "code", "scope": "openid", "code": "123456",
	}
}

func isoQuery(v *victim) string {
	return url.Values{"organization_id": {v.org}, "member_id": {v.member}, "connection_id": {v.saml},
		"client_id": {v.m2m}, "email_address": {v.memberEmail}}.Encode()
}

// isoPaths fills a pattern's wildcards with the victim's ids; a wildcard
// that can name several of the victim's objects gives one path each. own,
// when set, is the intruder's SCIM connection, put in {connection_id}.
func isoPaths(pattern string, v *victim, own string) []string {
	paths := []string{""}
	rest := pattern
	for {
		loc := isoWildcard.FindStringSubmatchIndex(rest)
		if loc == nil {
			break
		}
		lit, name := rest[:loc[0]], rest[loc[2]:loc[3]]
		rest = rest[loc[1]:]
		var vals []string
		switch name {
		case "organization_id":
			vals = []string{v.org}
		case "member_id":
			vals = []string{v.member}
		case "a":
			vals = []string{v.member}
		case "b":
			vals = []string{"totp"}
		case "connection_id":
			switch {
			case own != "":
				vals = []string{own}
			case strings.Contains(pattern, "/scim/"):
				vals = []string{v.scim}
			case strings.Contains(pattern, "/oidc/"):
				vals = []string{v.oidc}
			case strings.Contains(pattern, "/saml/"):
				vals = []string{v.saml}
			default:
				vals = []string{v.saml, v.oidc}
			}
		case "client_id":
			if strings.Contains(pattern, "/m2m/") {
				vals = []string{v.m2m}
			} else {
				vals = []string{v.app}
			}
		case "connected_app_id":
			vals = []string{v.app}
		case "member_password_id":
			vals = []string{v.passwordID}
		case "id":
			if strings.Contains(pattern, "/Groups/") {
				vals = []string{v.scimGroup}
			} else {
				vals = []string{v.scimUser}
			}
		case "project_id":
			vals = []string{v.project.Project.ID}
		case "provider":
			vals = []string{"google"}
		default:
			vals = []string{name + "-test-00000000-0000-4000-8000-000000000000"}
		}
		var next []string
		for _, p := range paths {
			for _, val := range vals {
				next = append(next, p+lit+url.PathEscape(val))
			}
		}
		paths = next
	}
	for i := range paths {
		paths[i] += rest
	}
	// The password form of .../members/{a}/{b}.
	if strings.HasSuffix(pattern, "/members/{a}/{b}") {
		paths = append(paths, strings.TrimSuffix(paths[0], v.member+"/totp")+"passwords/"+v.passwordID)
	}
	return paths
}

// isoProblem says what is wrong with an intruder's answer, or "".
func isoProblem(rt app.RouteInfo, req isoReq, r apptest.Resp) string {
	_, anon := anonymousRoutes[rt.Pattern]
	// A connected app is project A's, not an organization's: every
	// organization of the project may read it and revoke its own members'
	// grants to it (api-reference: organization.getConnectedApp).
	if sameProject(req.cred) && strings.Contains(rt.Pattern, "{connected_app_id}") && rt.Face == httpapi.SDK {
		anon = true
	}
	if strings.Contains(string(r.Raw), canary) && !(anon && sameProject(req.cred)) {
		return fmt.Sprintf("the answer carries the victim's data: %d %s", r.Status, trunc(string(r.Raw), 300))
	}
	if r.Status < 300 {
		// A 2xx is a refusal's failure when the path named the victim's
		// object; a route that took the victim's ids only in its body or
		// query may answer about the caller's own tenant (organizations/me,
		// a login start in its own project): the checks above and the
		// snapshot say whether it reached the victim.
		if isoWildcard.MatchString(rt.Pattern) && !anon {
			return fmt.Sprintf("answered %d: %s", r.Status, trunc(string(r.Raw), 300))
		}
		return ""
	}
	if r.Status < 400 || r.Status >= 500 {
		return fmt.Sprintf("answered %d: %s", r.Status, trunc(string(r.Raw), 300))
	}
	_, path, _ := strings.Cut(rt.Pattern, " ")
	if p := catalogueShape(r.Status, r.Raw); p != "" {
		switch {
		case strings.HasPrefix(path, "/v1/b2b/scim/{connection_id}/") && scimShape(r):
		case strings.Contains(path, "/oauth2/") && rfc6749Shape(r.Raw):
		default:
			return "not a catalogue error: " + p + ": " + trunc(string(r.Raw), 300)
		}
	}
	return ""
}

// sameProject says whether a credential is project A's own (another
// organization's member) rather than project B's.
func sameProject(cred string) bool { return strings.HasPrefix(cred, "sdk-other-org") }

func scimShape(r apptest.Resp) bool {
	s, _ := r.Body["schemas"].([]any)
	return len(s) == 1 && s[0] == "urn:ietf:params:scim:api:messages:2.0:Error"
}
