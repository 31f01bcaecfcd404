package discovery_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

const eligible = "eligible_to_join_by_email_domain"

// claimedOf reads an organization's claimed_email_domains on the backend
// face, as JSON.
func claimedOf(t *testing.T, e *apptest.Env, orgID string) string {
	t.Helper()
	raw, _ := json.Marshal(e.Backend(http.MethodGet, "/v1/b2b/organizations/"+orgID, nil).Body["organization"].(map[string]any)["claimed_email_domains"])
	return string(raw)
}

// exchange enters org with a discovery IST on the SDK face.
func exchange(e *apptest.Env, ist, org string) apptest.Resp {
	return e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": ist,
		"organization_id": org, "session_duration_minutes": 60}, "")
}

// create makes an organization with a discovery IST on the SDK face.
func create(e *apptest.Env, ist string) apptest.Resp {
	return e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{"intermediate_session_token": ist,
		"session_duration_minutes": 60}, "")
}

// The audit's scenario. mallory@startup.test creates an organization from
// the browser with email JIT RESTRICTED to bigcorp.test and tries to claim
// the domain outright (discovery's create, organizations/me, and the
// backend's discovery create, which does not take the field either). The
// organization is offered to bigcorp.test people as one they may join (the
// API family's domain rule), but claims nothing: alice@bigcorp.test still
// creates her own organization and joins others. Two organizations
// restricting to one domain are both offered.
func TestAllowedDomainsOnlyOffer(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		squat := map[string]any{"email_jit_provisioning": "RESTRICTED", "email_allowed_domains": []string{"bigcorp.test"},
			"claimed_email_domains": []string{"bigcorp.test"}, "session_duration_minutes": 60}
		body := maps.Clone(squat)
		body["intermediate_session_token"] = e.Discover("mallory@startup.test")["intermediate_session_token"]
		body["organization_slug"] = "mallory-co"
		r := e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", body, "")
		apptest.Want(t, r, 200, "")
		mallory := r.Data()["organization"].(map[string]any)["organization_id"].(string)
		session, _ := r.Data()["session_token"].(string)
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"claimed_email_domains": []string{"bigcorp.test"}}, session), 200, "")
		if got := claimedOf(t, e, mallory); got != `[]` {
			t.Fatalf("mallory's organization claims %s", got)
		}
		body = maps.Clone(squat)
		body["intermediate_session_token"] = e.Discover("eve@startup.test")["intermediate_session_token"]
		body["organization_slug"] = "eve-co"
		r = e.Backend(http.MethodPost, "/v1/b2b/discovery/organizations/create", body)
		apptest.Want(t, r, 200, "")
		if got := claimedOf(t, e, r.Body["organization"].(map[string]any)["organization_id"].(string)); got != `[]` {
			t.Fatalf("backend discovery create claimed %s", got)
		}
		open := e.CreateOrg("open-co", "ALL_ALLOWED", nil)

		// Nobody at bigcorp.test vouches for either organization yet: they
		// are not offered (vouch_test.go). Once each has a member with a
		// proven bigcorp.test address, both are.
		if got := apptest.Memberships(e.Discover("dan@bigcorp.test")); len(got) != 0 {
			t.Fatalf("unvouched organizations offered: %v", got)
		}
		e.CreateVerifiedMember(mallory, "mel@bigcorp.test")
		e.CreateVerifiedMember(r.Body["organization"].(map[string]any)["organization_id"].(string), "evan@bigcorp.test")
		d := e.Discover("alice@bigcorp.test")
		if got := apptest.Memberships(d); !maps.Equal(got, map[string]string{"mallory-co": eligible, "eve-co": eligible}) {
			t.Fatalf("alice discovered %v", got)
		}
		r = create(e, d["intermediate_session_token"].(string))
		apptest.Want(t, r, 200, "")
		if r.Data()["member"].(map[string]any)["email_address"] != "alice@bigcorp.test" {
			t.Fatalf("create: %s", r.Raw)
		}
		apptest.Want(t, exchange(e, e.Discover("bob@bigcorp.test")["intermediate_session_token"].(string), open), 200, "")
		for _, org := range []string{mallory, open} {
			apptest.Want(t, exchange(e, e.Discover("carol@bigcorp.test")["intermediate_session_token"].(string), org), 200, "")
		}
	})
}

// A claim the backend sets keeps the domain's people out of every other
// organization: discovery's create and joining another organization are
// action_not_allowed_email_domain_is_claimed, and an organization whose
// domain rule would admit them is no longer offered. The claimant admits
// them by its own email JIT settings; the claim alone offers nothing.
// Someone already a member elsewhere still logs in there, and releasing
// the claim lets them create again.
func TestBackendClaimKeepsTheDomainsPeopleOut(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		bigcorp := e.CreateOrg("bigcorp", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"bigcorp.test"},
			"claimed_email_domains": []string{"bigcorp.test"}})
		squatter := e.CreateOrg("squatter", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"bigcorp.test"}})
		// Both are vouched for at bigcorp.test: the claim is what hides the
		// squatter.
		e.CreateVerifiedMember(bigcorp, "boss@bigcorp.test")
		e.CreateVerifiedMember(squatter, "sam@bigcorp.test")
		open := e.CreateOrg("open-co", "ALL_ALLOWED", nil)
		e.CreateMember(open, "carl@bigcorp.test")

		d := e.Discover("alice@bigcorp.test")
		if got := apptest.Memberships(d); !maps.Equal(got, map[string]string{"bigcorp": eligible}) {
			t.Fatalf("alice discovered %v", got)
		}
		ist := d["intermediate_session_token"].(string)
		apptest.Want(t, create(e, ist), 403, "action_not_allowed_email_domain_is_claimed")
		apptest.Want(t, exchange(e, ist, open), 403, "action_not_allowed_email_domain_is_claimed")
		apptest.Want(t, exchange(e, ist, squatter), 403, "action_not_allowed_email_domain_is_claimed")
		r := exchange(e, ist, bigcorp)
		apptest.Want(t, r, 200, "")
		if r.Data()["organization"].(map[string]any)["organization_id"] != bigcorp {
			t.Fatalf("joined %s", r.Raw)
		}

		d = e.Discover("carl@bigcorp.test")
		if got := apptest.Memberships(d); got["open-co"] != "active_member" {
			t.Fatalf("carl discovered %v", got)
		}
		apptest.Want(t, exchange(e, d["intermediate_session_token"].(string), open), 200, "")

		gated := e.CreateOrg("gated", "NOT_ALLOWED", map[string]any{"claimed_email_domains": []string{"gated.test"}})
		d = e.Discover("gus@gated.test")
		if got := apptest.Memberships(d); len(got) != 0 {
			t.Fatalf("a claim alone offered %v", got)
		}
		ist = d["intermediate_session_token"].(string)
		apptest.Want(t, create(e, ist), 403, "action_not_allowed_email_domain_is_claimed")
		apptest.Want(t, exchange(e, ist, gated), 403, "email_jit_provisioning_not_allowed")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+gated, map[string]any{"claimed_email_domains": []string{}}), 200, "")
		apptest.Want(t, create(e, ist), 200, "")
	})
}
