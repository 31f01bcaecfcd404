package idp

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/latchkey/latchkey/internal/apptest/testkeys"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// fuzzFixture is a Provider wired to its real stores on SQLite, as
// app.wireModules wires it but without RBAC (so only the built-in scopes
// exist) and without sessions: the fuzz targets reach the provider's
// request handling directly, with the authorizer already resolved, since
// apptest (which imports this package) cannot serve an internal test, and
// going through HTTP would spend the fuzzer's time in the server.
type fuzzFixture struct {
	p      *Provider
	clk    *clock.Fake
	pid    string
	org    *organization.Organization
	member *organization.Member
	// clients, by role: a confidential third-party app, a public one, a
	// first-party app allowed full_access, and a third-party app the
	// organization does not allow.
	conf, pub, first, denied *connectedapps.App
}

// The fixture's registered URLs: every client has its own, so a URL
// registered for one client and presented for another is in the corpus.
var (
	fuzzRedirects = map[string][]string{
		"conf":   {"https://rp.test/cb", "https://rp.test/cb?tenant=a%20b"},
		"pub":    {"http://localhost:4000/cb"},
		"first":  {"https://first.test/cb"},
		"denied": {"https://denied.test/cb"},
	}
	fuzzLogoutRedirects = map[string][]string{
		"conf":   {"https://rp.test/bye", "https://rp.test/bye?next=%2F"},
		"pub":    {"http://localhost:4000/bye"},
		"first":  {"https://first.test/bye"},
		"denied": {"https://denied.test/bye"},
	}
)

const fuzzAuthorizationPage = "https://app.customer.test/authorize"

func newFuzzFixture(f *testing.F) *fuzzFixture {
	f.Helper()
	ctx := context.Background()
	db := storetest.SQLite(f)
	if err := db.Migrate(ctx, Migrations()); err != nil {
		f.Fatal(err)
	}
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	projects := project.NewStore(db, clk, secretbox.NewRandom())
	projects.UseKeySource(testkeys.Source)
	pr, err := projects.Create(ctx, project.CreateParams{Name: "Fuzz", Env: ids.Test})
	if err != nil {
		f.Fatal(err)
	}
	limiter := ratelimit.New(db, clk)
	apps := connectedapps.NewStore(db, clk)
	orgs := organization.NewStore(db, clk)
	x := &fuzzFixture{clk: clk, pid: pr.Project.ID,
		p: &Provider{db: db, clock: clk, log: slog.New(slog.NewTextHandler(io.Discard, nil)), apps: apps, orgs: orgs,
			projects: projects, flows: flowtoken.New(db, clk, limiter), limiter: limiter,
			baseURL: func() string { return "https://idp.test" }}}
	if err := SetAuthorizationURL(ctx, db, clk, x.pid, fuzzAuthorizationPage); err != nil {
		f.Fatal(err)
	}
	yes := true
	mk := func(role, typ string) *connectedapps.App {
		name, redirects, logouts := "RP "+role, fuzzRedirects[role], fuzzLogoutRedirects[role]
		fields := connectedapps.Fields{ClientName: &name, RedirectURLs: &redirects, PostLogoutRedirectURLs: &logouts}
		if typ == connectedapps.FirstParty {
			fields.FullAccessAllowed = &yes
		}
		a, _, err := apps.Create(ctx, x.pid, ids.Test, typ, fields)
		if err != nil {
			f.Fatalf("client %s: %v", role, err)
		}
		return a
	}
	x.conf, x.pub = mk("conf", connectedapps.ThirdParty), mk("pub", connectedapps.ThirdPartyPublic)
	x.first, x.denied = mk("first", connectedapps.FirstParty), mk("denied", connectedapps.ThirdParty)
	restricted, allowed := organization.Restricted, []string{x.conf.ClientID, x.pub.ClientID}
	orgName, slug := "Acme", "acme"
	x.org, err = orgs.Create(ctx, x.pid, ids.Test, organization.Settings{Name: &orgName, Slug: &slug,
		ThirdPartyConnectedAppsAllowedType: &restricted, AllowedThirdPartyConnectedApps: &allowed})
	if err != nil {
		f.Fatal(err)
	}
	err = db.Tx(ctx, func(q store.Querier) error {
		x.member, err = orgs.CreateMember(ctx, q, x.org, ids.Test, organization.NewMember{Email: "ada@acme.test", Status: organization.StatusActive})
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	return x
}

// app is the registered client named id, or nil.
func (x *fuzzFixture) app(id string) (role string, a *connectedapps.App) {
	for role, a := range map[string]*connectedapps.App{"conf": x.conf, "pub": x.pub, "first": x.first, "denied": x.denied} {
		if a.ClientID == id {
			return role, a
		}
	}
	return "", nil
}

// idToken signs an ID token of the fixture's member for audience, as the
// provider signs them, with the session id sid.
func (x *fuzzFixture) idToken(f *testing.F, sid string, audience ...string) string {
	f.Helper()
	s, err := x.p.signer(context.Background(), x.pid)
	if err != nil {
		f.Fatal(err)
	}
	now := x.clk.Now()
	tok, err := jwt.Signed(s).Claims(map[string]any{"iss": x.p.Issuer(x.pid), "sub": x.member.MemberID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(idTokenTTL).Unix(), "sid": sid}).Serialize()
	if err != nil {
		f.Fatal(err)
	}
	return tok
}
