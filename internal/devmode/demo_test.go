package devmode_test

import (
	"context"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/devmode"
	"github.com/latchkey/latchkey/internal/project"
)

// The seed makes one organization per family of flows and the demo page
// offers each of them with how to try it: what `make run` shows.
func TestDemoSeedAndPageOfferEveryFlow(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		a := e.App
		seeded, err := devmode.Seed(ctx, a.Projects, a.Orgs, e.Srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if err := devmode.SeedSSO(ctx, a.SSO, a.Orgs, seeded.Project.ID, a.DevSAML, a.DevOIDC); err != nil {
			t.Fatal(err)
		}
		p := seeded.Project.ID
		initech, err := a.Orgs.BySlug(ctx, p, "initech")
		if err != nil {
			t.Fatal(err)
		}
		if len(initech.SSOActiveConnections) != 2 || initech.SSOJITProvisioning != "ALL_ALLOWED" ||
			initech.SSODefaultConnectionID == nil {
			t.Fatalf("initech: %+v", initech)
		}
		// The discovery hint promises any @globex.test or @initech.test
		// address these organizations: their seeded members vouch for
		// their domains (email JIT for both, SSO JIT for Initech).
		for slug, domain := range map[string]string{"globex": "globex.test", "initech": "initech.test"} {
			joinable, err := a.Orgs.JoinableByDomain(ctx, a.DB.Read(), p, domain)
			if err != nil || len(joinable) != 1 || joinable[0].OrganizationSlug != slug {
				t.Errorf("%s: joinable by domain %v %v", domain, joinable, err)
			}
		}
		if sso, err := a.Orgs.WithAllowedDomain(ctx, a.DB.Read(), p, "initech.test"); err != nil || len(sso) != 1 {
			t.Errorf("initech.test: SSO JIT organizations %v %v", sso, err)
		}
		hooli, err := a.Orgs.BySlug(ctx, p, "hooli")
		if err != nil || hooli.MFAPolicy != "REQUIRED_FOR_ALL" {
			t.Fatalf("hooli: %v %+v", err, hooli)
		}
		// A second start keeps what exists.
		again, err := devmode.Seed(ctx, a.Projects, a.Orgs, e.Srv.URL)
		if err != nil || again.Project.ID != p || again.Secret != "" {
			t.Fatalf("reseed: %v %+v", err, again)
		}

		r := e.Get("/")
		page := string(r.Raw)
		if r.Status != 200 || !strings.Contains(r.Header.Get("Content-Security-Policy"), "'nonce-") {
			t.Fatalf("demo page: %d %q", r.Status, r.Header.Get("Content-Security-Policy"))
		}
		for _, want := range []string{`id="login-discovery"`, `authFlowType: 'Discovery'`, "Try every flow",
			"single sign-on", "then MFA", `"sso"`, `"passwords"`, "Pat Contractor", "Joanna"} {
			if !strings.Contains(page, want) {
				t.Errorf("demo page lacks %q", want)
			}
		}
		for _, d := range devmode.DemoOrgs {
			if !strings.Contains(page, `id="login-`+d.Slug+`"`) || !strings.Contains(page, d.Member) {
				t.Errorf("demo page lacks %s", d.Slug)
			}
			// Every demo organization's admins may invite (the seed names
			// auth settings, so it must say so explicitly).
			if o, err := a.Orgs.BySlug(ctx, p, d.Slug); err != nil {
				t.Errorf("%s: %v", d.Slug, err)
			} else if o.EmailInvites != "ALL_ALLOWED" {
				t.Errorf("%s: email_invites = %s, want ALL_ALLOWED", d.Slug, o.EmailInvites)
			}
		}
	})
}

// A dev server started on another address (latchkey dev --addr, whose
// base URL follows it) finds the demo project it seeded before: the demo
// page's origin and redirect URL there must be the project's too, or the
// widget is refused on the new port.
func TestDemoSeedFollowsTheBaseURL(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		a := e.App
		first, err := devmode.Seed(ctx, a.Projects, a.Orgs, "http://localhost:8080")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := devmode.Seed(ctx, a.Projects, a.Orgs, "http://localhost:9000"); err != nil {
			t.Fatal(err)
		}
		p := first.Project.ID
		for _, base := range []string{"http://localhost:8080", "http://localhost:9000"} {
			if ok, err := a.Projects.OriginAllowed(ctx, p, base); err != nil || !ok {
				t.Errorf("origin %s: %t, %v", base, ok, err)
			}
			if got, err := a.Projects.ResolveRedirect(ctx, p, project.RedirectLogin, base+"/"); err != nil || got != base+"/" {
				t.Errorf("redirect %s/: %q, %v", base, got, err)
			}
		}
		// The first base stays the default redirect.
		if got, err := a.Projects.ResolveRedirect(ctx, p, project.RedirectLogin, ""); err != nil || got != "http://localhost:8080/" {
			t.Errorf("default redirect: %q, %v", got, err)
		}
	})
}
