package app_test

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
)

// eventsOf waits for the audit events of type typ ("" for any) of the
// request that answered r (its X-Request-Id): the route records after the
// answer is written, so the client may read it first. want is how many to
// wait for; 0 looks once (see TestAdminChangesAreAudited's barrier).
func eventsOf(t *testing.T, e *apptest.Env, r apptest.Resp, typ string, want int) []audit.Event {
	t.Helper()
	rid := r.Header.Get("X-Request-Id")
	if rid == "" {
		t.Fatalf("no request id in the answer: %s", r.Raw)
	}
	var out []audit.Event
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		evs, err := e.App.Audit.List(context.Background(), audit.Filter{ProjectID: e.Project.Project.ID, Limit: audit.MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		out = slices.DeleteFunc(evs, func(ev audit.Event) bool { return ev.RequestID != rid || (typ != "" && ev.Type != typ) })
		if len(out) >= want || time.Now().After(deadline) {
			return out
		}
	}
}

// fromAnswer, as an expected member, is the member_id the answer names
// (a member the change created).
const fromAnswer = "(the answer's member_id)"

// adminEvent is what a test expects of an administrative change's event.
type adminEvent struct {
	Type, Method, Actor, Org, Member string
	ActorMember                      string
	Fields                           []string
	IDs                              []string // names of the other ids details must hold
}

func adminEventOf(ev audit.Event) adminEvent {
	got := adminEvent{Type: ev.Type, Method: ev.Method, Actor: ev.Actor, Org: ev.OrganizationID, Member: ev.MemberID}
	got.ActorMember, _ = ev.Details["actor_member_id"].(string)
	if fs, ok := ev.Details["fields"].([]any); ok {
		for _, f := range fs {
			got.Fields = append(got.Fields, f.(string))
		}
	}
	for k, v := range ev.Details {
		if strings.HasSuffix(k, "_id") && k != "actor_member_id" && v != "" {
			got.IDs = append(got.IDs, k)
		}
	}
	slices.Sort(got.IDs)
	return got
}

// Security-relevant changes made through the API are admin_change events
// (and factor changes say who made them): one event per change, naming
// the organization and member changed, the member whose session acted
// (none for the project secret), and the names, never the values, of the
// fields sent. A representative change per module on both faces; refused
// changes record nothing.
func TestAdminChangesAreAudited(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		boss := e.CreateAdmin(org, "boss@acme.test")
		admin := e.SessionFor(org, "boss@acme.test")
		pat := e.CreateMember(org, "pat@acme.test")
		mo := e.CreateMember(org, "mo@acme.test")
		jo := e.CreateVerifiedMember(org, "jo@acme.test")
		plain := e.SessionFor(org, "pat@acme.test")
		orgPath := "/v1/b2b/organizations/" + org
		if r := e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": org, "member_id": mo}); r.Status != 200 {
			t.Fatalf("totp create: %s", r.Raw)
		}
		var connID, clientID string

		cases := []struct {
			name string
			do   func() apptest.Resp
			want adminEvent
			then func(r apptest.Resp)
		}{
			{"backend organization update", func() apptest.Resp {
				return e.Backend(http.MethodPut, orgPath, map[string]any{"mfa_policy": "OPTIONAL", "email_allowed_domains": []string{"acme.test"}})
			}, adminEvent{Type: audit.AdminChange, Method: "organization_updated", Actor: "backend", Org: org,
				Fields: []string{"email_allowed_domains", "mfa_policy"}}, nil},
			{"backend organization update for a member session", func() apptest.Resp {
				return e.BackendAs(http.MethodPut, orgPath, map[string]any{"organization_name": "Acme Two"}, organization.MemberSessionHeader, admin)
			}, adminEvent{Type: audit.AdminChange, Method: "organization_updated", Actor: "backend", Org: org, ActorMember: boss,
				Fields: []string{"organization_name"}}, nil},
			{"sdk organization update", func() apptest.Resp {
				return e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"email_jit_provisioning": "NOT_ALLOWED"}, admin)
			}, adminEvent{Type: audit.AdminChange, Method: "organization_updated", Actor: "sdk", Org: org, ActorMember: boss,
				Fields: []string{"email_jit_provisioning"}}, nil},
			{"backend member update", func() apptest.Resp {
				return e.Backend(http.MethodPut, orgPath+"/members/"+pat, map[string]any{"name": "Pat", "untrusted_metadata": map[string]any{"a": 1}})
			}, adminEvent{Type: audit.AdminChange, Method: "member_updated", Actor: "backend", Org: org, Member: pat,
				Fields: []string{"name", "untrusted_metadata"}}, nil},
			{"sdk member update", func() apptest.Resp {
				return e.SDK(http.MethodPut, "/b2b/organizations/members/"+pat, map[string]any{"name": "Patricia"}, admin)
			}, adminEvent{Type: audit.AdminChange, Method: "member_updated", Actor: "sdk", Org: org, Member: pat, ActorMember: boss,
				Fields: []string{"name"}}, nil},
			{"sdk member create", func() apptest.Resp {
				return e.SDK(http.MethodPost, "/b2b/organizations/members", map[string]any{"email_address": "new@acme.test"}, admin)
			}, adminEvent{Type: audit.AdminChange, Method: "member_created", Actor: "sdk", Org: org, Member: fromAnswer, ActorMember: boss,
				Fields: []string{"email_address"}}, nil},
			{"sdk invite", func() apptest.Resp {
				return e.SDK(http.MethodPost, "/b2b/magic_links/email/invite", map[string]any{"email_address": "guest@acme.test"}, admin)
			}, adminEvent{Type: audit.AdminChange, Method: "member_invited", Actor: "sdk", Org: org, Member: fromAnswer, ActorMember: boss,
				Fields: []string{"email_address"}}, nil},
			{"backend session revoke", func() apptest.Resp {
				return e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"member_id": pat})
			}, adminEvent{Type: audit.AdminChange, Method: "sessions_revoked", Actor: "backend", Org: org, Member: pat,
				Fields: []string{"member_id"}}, nil},
			{"sdk session revoke of another member", func() apptest.Resp {
				return e.SDK(http.MethodPost, "/b2b/sessions/revoke/"+pat, map[string]any{}, admin)
			}, adminEvent{Type: audit.AdminChange, Method: "sessions_revoked", Actor: "sdk", Org: org, Member: pat, ActorMember: boss}, nil},
			{"sdk member delete", func() apptest.Resp {
				return e.SDK(http.MethodDelete, "/b2b/organizations/members/"+jo, nil, admin)
			}, adminEvent{Type: audit.AdminChange, Method: "member_deleted", Actor: "sdk", Org: org, Member: jo, ActorMember: boss}, nil},
			{"backend member reactivate", func() apptest.Resp {
				return e.Backend(http.MethodPut, orgPath+"/members/"+jo+"/reactivate", nil)
			}, adminEvent{Type: audit.AdminChange, Method: "member_reactivated", Actor: "backend", Org: org, Member: jo}, nil},
			{"backend custom roles", func() apptest.Resp {
				return e.Backend(http.MethodPut, "/v1/b2b/rbac/organizations/"+org, map[string]any{"org_policy": map[string]any{"roles": []any{}}})
			}, adminEvent{Type: audit.AdminChange, Method: "organization_roles_updated", Actor: "backend", Org: org,
				Fields: []string{"org_policy"}}, nil},
			{"backend sso connection create", func() apptest.Resp {
				return e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+org, map[string]any{"display_name": "Okta"})
			}, adminEvent{Type: audit.AdminChange, Method: "sso_connection_created", Actor: "backend", Org: org,
				Fields: []string{"display_name"}, IDs: []string{"connection_id"}}, func(r apptest.Resp) {
				connID = r.Body["connection"].(map[string]any)["connection_id"].(string)
			}},
			{"sdk sso connection delete", func() apptest.Resp {
				return e.SDK(http.MethodDelete, "/b2b/sso/"+connID, nil, admin)
			}, adminEvent{Type: audit.AdminChange, Method: "sso_connection_deleted", Actor: "sdk", Org: org, ActorMember: boss,
				IDs: []string{"connection_id"}}, nil},
			{"sdk scim connection create", func() apptest.Resp {
				return e.SDK(http.MethodPost, "/b2b/scim", map[string]any{"display_name": "Okta"}, admin)
			}, adminEvent{Type: audit.AdminChange, Method: "scim_connection_created", Actor: "sdk", Org: org, ActorMember: boss,
				Fields: []string{"display_name"}, IDs: []string{"connection_id"}}, nil},
			{"backend m2m client create", func() apptest.Resp {
				return e.Backend(http.MethodPost, "/v1/m2m/clients", map[string]any{"client_name": "Cron", "scopes": []string{"read"}})
			}, adminEvent{Type: audit.AdminChange, Method: "m2m_client_created", Actor: "backend",
				Fields: []string{"client_name", "scopes"}, IDs: []string{"client_id"}}, func(r apptest.Resp) {
				clientID = r.Body["m2m_client"].(map[string]any)["client_id"].(string)
			}},
			{"backend m2m client update", func() apptest.Resp {
				return e.Backend(http.MethodPut, "/v1/m2m/clients/"+clientID, map[string]any{"status": "inactive"})
			}, adminEvent{Type: audit.AdminChange, Method: "m2m_client_updated", Actor: "backend",
				Fields: []string{"status"}, IDs: []string{"client_id"}}, nil},
			{"sdk factor change by an admin names the admin", func() apptest.Resp {
				return e.SDK(http.MethodDelete, "/b2b/organizations/members/totp/"+mo, nil, admin)
			}, adminEvent{Type: audit.FactorChange, Method: "totp_deleted", Actor: "sdk", Org: org, Member: mo, ActorMember: boss}, nil},
			{"backend organization delete", func() apptest.Resp {
				return e.Backend(http.MethodDelete, orgPath, nil)
			}, adminEvent{Type: audit.AdminChange, Method: "organization_deleted", Actor: "backend", Org: org}, nil},
		}
		// Refused changes: no permission, a bad body, an unknown member.
		var refused []apptest.Resp
		refused = append(refused,
			e.SDK(http.MethodPut, "/b2b/organizations/members/"+mo, map[string]any{"name": "Mo"}, plain),
			e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_name": "Pwned"}, plain),
			e.Backend(http.MethodPut, orgPath, map[string]any{"mfa_policy": "SOMETIMES"}),
			e.Backend(http.MethodDelete, orgPath+"/members/member-test-00000000-0000-4000-8000-000000000000", nil),
			e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"member_id": "member-test-00000000-0000-4000-8000-000000000000"}),
		)
		for _, r := range refused {
			if r.Status < 400 {
				t.Fatalf("a change meant to be refused passed: %s", r.Raw)
			}
		}
		for _, c := range cases {
			r := c.do()
			if r.Status != 200 {
				t.Fatalf("%s: %d %s", c.name, r.Status, r.Raw)
			}
			if c.then != nil {
				c.then(r)
			}
			// A secret issued with the object is its own event
			// (secret_rotated).
			evs := eventsOf(t, e, r, c.want.Type, 1)
			if len(evs) != 1 {
				t.Errorf("%s: %d events, want 1: %+v", c.name, len(evs), evs)
				continue
			}
			if c.want.Member == fromAnswer {
				c.want.Member, _ = r.Data()["member_id"].(string)
			}
			if diff := cmp.Diff(c.want, adminEventOf(evs[0])); diff != "" {
				t.Errorf("%s: event (-want +got):\n%s\n%+v", c.name, diff, evs[0])
			}
		}
		// The changes above went after the refusals on the same client:
		// any event of a refusal would be filed by now.
		for _, r := range refused {
			if evs := eventsOf(t, e, r, "", 0); len(evs) != 0 {
				t.Errorf("a refused change (%d %s) was recorded: %+v", r.Status, r.Raw, evs)
			}
		}
	})
}

// Every route of the API faces that can change something (any method but
// GET) is classified: an audited login or factor change, one of the
// administrative changes below, each with its action, or one of the
// routes below that changes no configuration, each with why. A route
// added anywhere fails here until its author decides which.
func TestEveryChangingRouteIsClassified(t *testing.T) {
	admin := map[string]string{
		"PUT /sdk/v1/b2b/organizations/me":                                                      "organization_updated",
		"DELETE /sdk/v1/b2b/organizations/me":                                                   "organization_deleted",
		"POST /sdk/v1/b2b/organizations/members":                                                "member_created",
		"PUT /sdk/v1/b2b/organizations/members/update":                                          "member_updated",
		"PUT /sdk/v1/b2b/organizations/members/{member_id}":                                     "member_updated",
		"DELETE /sdk/v1/b2b/organizations/members/{member_id}":                                  "member_deleted",
		"PUT /sdk/v1/b2b/organizations/members/{member_id}/reactivate":                          "member_reactivated",
		"POST /sdk/v1/b2b/organizations/members/unlink_retired_email":                           "retired_email_unlinked",
		"POST /sdk/v1/b2b/organizations/members/{member_id}/unlink_retired_email":               "retired_email_unlinked",
		"POST /v1/b2b/organizations":                                                            "organization_created",
		"PUT /v1/b2b/organizations/{organization_id}":                                           "organization_updated",
		"DELETE /v1/b2b/organizations/{organization_id}":                                        "organization_deleted",
		"DELETE /v1/b2b/organizations/{organization_id}/external_id":                            "organization_external_id_deleted",
		"POST /v1/b2b/organizations/{organization_id}/members":                                  "member_created",
		"PUT /v1/b2b/organizations/{organization_id}/members/{member_id}":                       "member_updated",
		"DELETE /v1/b2b/organizations/{organization_id}/members/{member_id}":                    "member_deleted",
		"DELETE /v1/b2b/organizations/{organization_id}/members/{member_id}/external_id":        "member_external_id_deleted",
		"PUT /v1/b2b/organizations/{organization_id}/members/{member_id}/reactivate":            "member_reactivated",
		"POST /v1/b2b/organizations/{organization_id}/members/{member_id}/unlink_retired_email": "retired_email_unlinked",
		"POST /sdk/v1/b2b/magic_links/email/invite":                                             "member_invited",
		"POST /v1/b2b/magic_links/email/invite":                                                 "member_invited",
		"POST /v1/b2b/passwords/email/require_reset":                                            "password_reset_required",
		"POST /sdk/v1/b2b/sessions/revoke/{member_id}":                                          "sessions_revoked",
		"POST /v1/b2b/sessions/revoke":                                                          "sessions_revoked",
		"PUT /v1/b2b/rbac/organizations/{organization_id}":                                      "organization_roles_updated",

		"DELETE /sdk/v1/b2b/sso/{connection_id}":                                                                           "sso_connection_deleted",
		"POST /sdk/v1/b2b/sso/saml":                                                                                        "sso_connection_created",
		"PUT /sdk/v1/b2b/sso/saml/{connection_id}":                                                                         "sso_connection_updated",
		"PUT /sdk/v1/b2b/sso/saml/{connection_id}/url":                                                                     "sso_connection_updated",
		"DELETE /sdk/v1/b2b/sso/saml/{connection_id}/verification_certificates/{certificate_id}":                           "sso_certificate_deleted",
		"DELETE /sdk/v1/b2b/sso/saml/{connection_id}/encryption_private_key/{private_key_id}":                              "sso_encryption_key_deleted",
		"POST /sdk/v1/b2b/sso/oidc":                                                                                        "sso_connection_created",
		"PUT /sdk/v1/b2b/sso/oidc/{connection_id}":                                                                         "sso_connection_updated",
		"POST /sdk/v1/b2b/sso/external":                                                                                    "sso_connection_created",
		"PUT /sdk/v1/b2b/sso/external/{connection_id}":                                                                     "sso_connection_updated",
		"DELETE /v1/b2b/sso/{organization_id}/connections/{connection_id}":                                                 "sso_connection_deleted",
		"POST /v1/b2b/sso/saml/{organization_id}":                                                                          "sso_connection_created",
		"PUT /v1/b2b/sso/saml/{organization_id}/connections/{connection_id}":                                               "sso_connection_updated",
		"PUT /v1/b2b/sso/saml/{organization_id}/connections/{connection_id}/url":                                           "sso_connection_updated",
		"DELETE /v1/b2b/sso/saml/{organization_id}/connections/{connection_id}/verification_certificates/{certificate_id}": "sso_certificate_deleted",
		"DELETE /v1/b2b/sso/saml/{organization_id}/connections/{connection_id}/encryption_private_keys/{private_key_id}":   "sso_encryption_key_deleted",
		"POST /v1/b2b/sso/oidc/{organization_id}":                                                                          "sso_connection_created",
		"PUT /v1/b2b/sso/oidc/{organization_id}/connections/{connection_id}":                                               "sso_connection_updated",
		"POST /v1/b2b/sso/external/{organization_id}":                                                                      "sso_connection_created",
		"PUT /v1/b2b/sso/external/{organization_id}/connections/{connection_id}":                                           "sso_connection_updated",

		"POST /sdk/v1/b2b/scim":                                                                                     "scim_connection_created",
		"PUT /sdk/v1/b2b/scim/{connection_id}":                                                                      "scim_connection_updated",
		"DELETE /sdk/v1/b2b/scim/{connection_id}":                                                                   "scim_connection_deleted",
		"POST /v1/b2b/scim/{organization_id}/connection":                                                            "scim_connection_created",
		"PUT /v1/b2b/scim/{organization_id}/connection/{connection_id}":                                             "scim_connection_updated",
		"DELETE /v1/b2b/scim/{organization_id}/connection/{connection_id}":                                          "scim_connection_deleted",
		"POST /v1/connected_apps/clients":                                                                           "connected_app_created",
		"PUT /v1/connected_apps/clients/{client_id}":                                                                "connected_app_updated",
		"DELETE /v1/connected_apps/clients/{client_id}":                                                             "connected_app_deleted",
		"POST /v1/m2m/clients":                                                                                      "m2m_client_created",
		"PUT /v1/m2m/clients/{client_id}":                                                                           "m2m_client_updated",
		"DELETE /v1/m2m/clients/{client_id}":                                                                        "m2m_client_deleted",
		"POST /sdk/v1/b2b/organizations/members/connected_apps/{connected_app_id}/revoke":                           "connected_app_consent_revoked",
		"POST /sdk/v1/b2b/organizations/members/{member_id}/connected_apps/{connected_app_id}/revoke":               "connected_app_consent_revoked",
		"POST /v1/b2b/organizations/{organization_id}/members/{member_id}/connected_apps/{connected_app_id}/revoke": "connected_app_consent_revoked",
	}
	// Why each of these is no administrative change.
	unaudited := map[string]string{
		"POST /sdk/v1/events":                              "widget telemetry",
		"POST /sdk/v1/b2b/organizations/search":            "a read",
		"POST /v1/b2b/organizations/search":                "a read",
		"POST /sdk/v1/b2b/organizations/me/members/search": "a read",
		"POST /sdk/v1/b2b/organizations/members/search":    "a read",
		"POST /v1/b2b/organizations/members/search":        "a read",
		"POST /v1/connected_apps/clients/search":           "a read",
		"POST /v1/m2m/clients/search":                      "a read",
		"POST /sdk/v1/b2b/scim/groups":                     "a read",
		"POST /sdk/v1/b2b/discovery/organizations":         "a read",
		"POST /v1/b2b/discovery/organizations":             "a read",
		"POST /sdk/v1/b2b/sessions/authenticate":           "the session check",
		"POST /v1/b2b/sessions/authenticate":               "the session check",
		"POST /sdk/v1/b2b/sessions/revoke":                 "the caller's own logout",
		"POST /sdk/v1/b2b/passwords/strength_check":        "a read",
		"POST /v1/b2b/passwords/strength_check":            "a read",
		// Login steps before the audited authenticate.
		"POST /sdk/v1/b2b/magic_links/email/login_or_signup":    "a login step",
		"POST /v1/b2b/magic_links/email/login_or_signup":        "a login step",
		"POST /sdk/v1/b2b/otps/email/login_or_signup":           "a login step",
		"POST /v1/b2b/otps/email/login_or_signup":               "a login step",
		"POST /sdk/v1/b2b/magic_links/email/discovery/send":     "a login step",
		"POST /v1/b2b/magic_links/email/discovery/send":         "a login step",
		"POST /sdk/v1/b2b/otps/email/discovery/send":            "a login step",
		"POST /v1/b2b/otps/email/discovery/send":                "a login step",
		"POST /sdk/v1/b2b/passwords/email/reset/start":          "a login step",
		"POST /sdk/v1/b2b/passwords/discovery/reset/start":      "a login step",
		"POST /v1/b2b/passwords/email/reset/start":              "a login step",
		"POST /v1/b2b/passwords/discovery/email/reset/start":    "a login step",
		"POST /sdk/v1/b2b/otps/sms/send":                        "a login step",
		"POST /v1/b2b/otps/sms/send":                            "a login step",
		"POST /sdk/v1/b2b/oauth/google/onetap/submit":           "a login step",
		"POST /sdk/v1/b2b/oauth/google/onetap/discovery/submit": "a login step",
		// The identity provider's consent flow: a member granting an app
		// access through a login, and their logout.
		"POST /sdk/v1/idp/b2b/oauth/authorize/start":  "a login step",
		"POST /sdk/v1/idp/b2b/oauth/authorize/submit": "a login step",
		"POST /v1/b2b/idp/oauth/authorize/start":      "a login step",
		"POST /v1/b2b/idp/oauth/authorize":            "a login step",
		"POST /sdk/v1/b2b/oauth/logout/start":         "the caller's own logout",
		// Secrets issued and ended are secret_rotated / secret_retired
		// events already (clientsecret.Record).
		"POST /v1/connected_apps/clients/{client_id}/secrets/rotate/start":               "secret_rotated",
		"POST /v1/connected_apps/clients/{client_id}/secrets/rotate":                     "secret_rotated",
		"POST /v1/connected_apps/clients/{client_id}/secrets/rotate/cancel":              "secret_rotated",
		"POST /v1/m2m/clients/{client_id}/secrets/rotate/start":                          "secret_rotated",
		"POST /v1/m2m/clients/{client_id}/secrets/rotate":                                "secret_rotated",
		"POST /v1/m2m/clients/{client_id}/secrets/rotate/cancel":                         "secret_rotated",
		"POST /sdk/v1/b2b/scim/rotate/start":                                             "secret_rotated",
		"POST /sdk/v1/b2b/scim/rotate/complete":                                          "secret_rotated",
		"POST /sdk/v1/b2b/scim/rotate/cancel":                                            "secret_rotated",
		"POST /v1/b2b/scim/{organization_id}/connection/{connection_id}/rotate/start":    "secret_rotated",
		"POST /v1/b2b/scim/{organization_id}/connection/{connection_id}/rotate/complete": "secret_rotated",
		"POST /v1/b2b/scim/{organization_id}/connection/{connection_id}/rotate/cancel":   "secret_rotated",
	}
	e := apptest.New(t, apptest.SQLite(t), nil)
	seen := map[string]bool{}
	for _, ri := range e.App.RouteTable() {
		verb, _, _ := strings.Cut(ri.Pattern, " ")
		seen[ri.Pattern] = true
		want, isAdmin := admin[ri.Pattern]
		switch {
		case isAdmin:
			if ri.Audit != (httpapi.Audit{Admin: want}) {
				t.Errorf("%s: audit %+v, want the administrative change %q", ri.Pattern, ri.Audit, want)
			}
		case ri.Audit.Admin != "":
			t.Errorf("%s: recorded as the administrative change %q, which this test does not list", ri.Pattern, ri.Audit.Admin)
		case ri.Face == httpapi.Public || ri.Raw || verb == http.MethodGet:
			// Browser round trips, protocol endpoints (the identity
			// provider's token revocation and end_session are a client's
			// and a member's own logout; SCIM provisioning is its own
			// event type), and reads.
		case ri.Audit.Login != "" || ri.Audit.Factor != "":
		case unaudited[ri.Pattern] == "":
			t.Errorf("%s changes something and is not classified: flag it with LogsAdminChange, or list it here as no administrative change", ri.Pattern)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(admin)) {
		if !seen[p] {
			t.Errorf("%s: listed as an administrative change, but no such route is mounted", p)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(unaudited)) {
		if !seen[p] {
			t.Errorf("%s: listed as unaudited, but no such route is mounted", p)
		}
	}
}
