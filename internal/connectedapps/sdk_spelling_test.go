package connectedapps_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/connectedapps"
)

// api-reference §1.4 and §3.11: @stytch/vanilla-js 6.3.0's
// organization.members.getConnectedApps builds its URL without the slash
// after /sdk/v1, so the browser asks for
// {base}/sdk/v1b2b/organizations/members/{member_id}/connected_apps. That
// spelling is the same route: the same answer, the same authorization,
// the same CORS front (the browser sends a preflight first).
func TestSDKMemberConnectedAppsAsTheSDKSpellsIt(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateAdmin(org, "ada@acme.test")
		admin := e.SessionFor(org, "ada@acme.test")
		mid := e.CreateMember(org, "grace@acme.test")
		id := app(t, e.Backend(http.MethodPost, "/v1/connected_apps/clients", map[string]any{"client_type": "third_party",
			"client_name": "Agent"}))["client_id"].(string)
		st := connectedapps.NewStore(e.App.DB, e.Clock)
		if err := st.SaveGrant(context.Background(), e.App.DB, connectedapps.Grant{MemberID: mid, OrganizationID: org,
			ClientID: id, Scopes: []string{"openid"}}); err != nil {
			t.Fatal(err)
		}
		get := func(path, tok string) apptest.Resp {
			pass := tok
			if pass == "" {
				pass = e.Project.PublicToken
			}
			return e.Do(http.MethodGet, path, nil, http.Header{"Origin": {apptest.Origin}}, e.Project.PublicToken, pass)
		}
		misspelled := "/sdk/v1b2b/organizations/members/" + mid + "/connected_apps"

		r := get(misspelled, admin)
		apptest.Want(t, r, 200, "")
		if apps, ok := r.Data()["connected_apps"].([]any); !ok || len(apps) != 1 {
			t.Fatalf("connected_apps: %s", r.Raw)
		}
		if r.Header.Get("Access-Control-Allow-Origin") != apptest.Origin {
			t.Errorf("no CORS answer: %v", r.Header)
		}
		right := get("/sdk/v1/b2b/organizations/members/"+mid+"/connected_apps", admin)
		if !bytes.Equal(stripRequestID(r), stripRequestID(right)) {
			t.Errorf("answers differ:\n%s\n%s", r.Raw, right.Raw)
		}

		pre := e.Do(http.MethodOptions, misspelled, nil, http.Header{"Origin": {apptest.Origin},
			"Access-Control-Request-Method": {"GET"}, "Access-Control-Request-Headers": {"authorization"}}, "", "")
		if pre.Status != 204 || pre.Header.Get("Access-Control-Allow-Origin") != apptest.Origin {
			t.Errorf("preflight: %d %v", pre.Status, pre.Header)
		}

		plain := e.SessionFor(org, "bob@acme.test")
		apptest.Want(t, get(misspelled, plain), 403, "unauthorized_action")
		apptest.Want(t, get(misspelled, ""), 401, "user_unauthenticated")
		// Only what a module registers under that spelling exists there.
		apptest.Want(t, get("/sdk/v1b2b/sessions/authenticate", admin), 404, "route_not_found")
	})
}

// stripRequestID is an answer's body without its request id.
func stripRequestID(r apptest.Resp) []byte {
	return bytes.Replace(r.Raw, []byte(r.Data()["request_id"].(string)), nil, 1)
}
