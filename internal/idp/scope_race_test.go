package idp_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/rbac"
	"github.com/latchkey/latchkey/internal/store"
)

// removeDocsScope stores the docs policy without its scope: the role and
// the resource stay.
func removeDocsScope(t *testing.T, e *apptest.Env) {
	t.Helper()
	pol, err := e.App.RBAC.Custom(context.Background(), e.Project.Project.ID)
	if err != nil {
		t.Fatal(err)
	}
	pol.Scopes = []rbac.Scope{}
	if _, err := e.App.RBAC.SetCustom(context.Background(), e.Project.Project.ID, pol); err != nil {
		t.Error(err)
	}
}

// docsFixture is the fixture with the docs policy, the member an editor
// (so read:docs is grantable) and a third-party client.
func docsFixture(t *testing.T, e *apptest.Env) (f *fixture, id, secret string) {
	t.Helper()
	f = setup(t, e)
	docsPolicy(t, e)
	apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.org+"/members/"+f.member,
		map[string]any{"roles": []string{"editor"}}), 200, "")
	f.session, _ = e.LoginByEmailOTP(f.org, "ada@acme.test")
	id, secret = f.client("third_party", nil)
	return f, id, secret
}

// wantAskedAgain defines read:docs again and fails unless authorize/start
// asks for consent to it: none is on record.
func (f *fixture) wantAskedAgain(t *testing.T, id string) {
	t.Helper()
	docsPolicy(t, f.e)
	start := f.e.SDK("POST", "/idp/b2b/oauth/authorize/start", authReq(id, "openid", "read:docs"), f.session)
	if apptest.Want(t, start, 200, ""); start.Data()["consent_required"] != true {
		t.Fatalf("a scope removed from the policy while it was being consented to was taken as consented once defined again: %s", start.Raw)
	}
}

// A custom scope the operator removes from the policy while an
// authorization that grants it is being submitted is not left in the
// member's consent. The submit checked the scope against the policy
// before its transaction; without an order between the two, the
// removal's pruning of consents (DropScopes) missed the consent the
// submit had not committed yet, and a scope of that name defined again
// later skipped consent. The submit now reads the policy again under its
// lock (rbac HoldPolicy), so the removal waits for it and then prunes
// what it wrote. The consent's insert is held until the removal waits
// for the submit (holdUntilWaited).
func TestScopeRemovedDuringSubmitIsNotConsented(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	f, id, _ := docsFixture(t, e)
	start := e.SDK("POST", "/idp/b2b/oauth/authorize/start", authReq(id, "openid", "read:docs"), f.session)
	if apptest.Want(t, start, 200, ""); start.Data()["consent_required"] != true {
		t.Fatalf("start: %s", start.Raw)
	}
	held := holdUntilWaited(t, e, "hold_grant",
		`CREATE TRIGGER hold_grant AFTER INSERT ON idp_grants FOR EACH ROW EXECUTE FUNCTION hold_grant()`)
	answered := make(chan apptest.Resp, 1)
	go func() {
		req := authReq(id, "openid", "read:docs")
		req["consent_granted"] = true
		answered <- e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, f.session)
	}()
	held()
	removeDocsScope(t, e)
	apptest.Want(t, <-answered, 200, "")
	f.wantAskedAgain(t, id)
}

// The other order: the removal is under way (its consents pruned, its
// policy written, not committed) when a submit that checked the scope
// against the policy before starts its transaction. The submit waits
// for the removal (the policy lock), reads the policy it committed, and
// grants the scopes still defined only: the code, its tokens and the
// consent lack the removed one.
func TestSubmitAfterAScopeRemovalGrantsWhatRemains(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	f, id, secret := docsFixture(t, e)
	held := holdUntilWaited(t, e, "hold_policy", `CREATE TRIGGER hold_policy AFTER UPDATE ON rbac_policies FOR EACH ROW
		WHEN (NEW.policy NOT LIKE '%read:docs%') EXECUTE FUNCTION hold_policy()`)
	removed := make(chan struct{})
	go func() { defer close(removed); removeDocsScope(t, e) }()
	held()
	req := authReq(id, "openid", "read:docs")
	req["consent_granted"] = true
	r := e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, f.session)
	apptest.Want(t, r, 200, "")
	<-removed
	back, err := url.Parse(r.Data()["redirect_uri"].(string))
	if err != nil || back.Query().Get("code") == "" {
		t.Fatalf("submit: %s", r.Raw)
	}
	tok := f.exchange(id, secret, back.Query().Get("code"), verifier)
	apptest.Want(t, tok, 200, "")
	if got := fields(tok.Body["scope"]); !slices.Equal(got, []string{"openid"}) {
		t.Fatalf("tokens of a submit that waited for the scope's removal: scope %v, want [openid]", got)
	}
	f.wantAskedAgain(t, id)
}

// The same removal while consent already on record is being widened: the
// union a submit writes back must not restore the removed scope it read
// before the removal committed. The removal is held at its pruning
// UPDATE until the other side waits for it; connectedapps.SaveGrant alone
// (its consent read FOR UPDATE) and the whole submit (also ordered by the
// policy lock) each keep it out.
func TestScopeRemovedWhileConsentWidensIsNotRestored(t *testing.T) {
	t.Parallel()
	widen := []struct {
		name string
		run  func(t *testing.T, e *apptest.Env, f *fixture, id string)
	}{
		{"SaveGrant", func(t *testing.T, e *apptest.Env, f *fixture, id string) {
			apps := connectedapps.NewStore(e.App.DB, e.Clock)
			err := e.App.DB.Tx(t.Context(), func(q store.Querier) error {
				return apps.SaveGrant(t.Context(), q, connectedapps.Grant{MemberID: f.member, OrganizationID: f.org,
					ClientID: id, Scopes: []string{"email"}})
			})
			if err != nil {
				t.Fatal(err)
			}
		}},
		{"submit", func(t *testing.T, e *apptest.Env, f *fixture, id string) {
			req := authReq(id, "openid", "email")
			req["consent_granted"] = true
			apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, f.session), 200, "")
		}},
	}
	for _, c := range widen {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := apptest.New(t, apptest.Postgres(t), nil)
			f, id, secret := docsFixture(t, e)
			f.grant(id, secret, "openid", "read:docs")
			held := holdUntilWaited(t, e, "hold_prune", `CREATE TRIGGER hold_prune AFTER UPDATE ON idp_grants FOR EACH ROW
				WHEN (OLD.scopes LIKE '%"read:docs"%' AND NEW.scopes NOT LIKE '%"read:docs"%') EXECUTE FUNCTION hold_prune()`)
			removed := make(chan struct{})
			go func() { defer close(removed); removeDocsScope(t, e) }()
			held()
			c.run(t, e, f, id)
			<-removed
			apps := connectedapps.NewStore(e.App.DB, e.Clock)
			g, err := apps.GrantOf(t.Context(), f.member, id)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(g.Scopes, "read:docs") || !slices.Contains(g.Scopes, "email") {
				t.Fatalf("consent after the removal and the widening: %v", g.Scopes)
			}
			f.wantAskedAgain(t, id)
		})
	}
}
