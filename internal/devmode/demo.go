package devmode

import (
	_ "embed"
	"html/template"
	"net/http"
	"net/url"
	"sync"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
)

//go:embed demo.html.tmpl
var demoHTML string

// The dev pages' templates parse on first use: `serve` outside dev mode
// never shows them, and parsed at package load they cost every process
// about 75 KB of heap (with the other dev templates) at idle.
var demoTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("demo").Funcs(template.FuncMap{"flowName": flowName}).Parse(demoHTML))
})

// flowName names a widget product for the demo page's list of flows.
func flowName(product string) string {
	names := map[string]string{"emailMagicLinks": "email magic links", "emailOtp": "email codes", "passwords": "passwords",
		"oauth": "OAuth through the mock providers", "sso": "SAML and OIDC single sign-on"}
	if n, ok := names[product]; ok {
		return n
	}
	return product
}

type demoOrg struct {
	Name, Slug, Rule, Member, Try string
	Products                      []string
	MFA                           bool
}

type demoView struct {
	ProjectName  string
	PublicToken  string
	BaseURL      string
	Orgs         []demoOrg
	DiscoveryTry string
	Nonce        string // the CSP nonce of the page's inline script
}

// DemoHandler serves the dev demo page at /: a discovery login widget,
// one login widget per demo organization (each showing its family of
// flows, with how to try it), the current session, and a link to the dev
// mailbox.
func DemoHandler(projects *project.Store, orgs *organization.Store, baseURL string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		p, err := projects.ByName(ctx, DemoProjectName)
		if err != nil {
			http.Error(w, "The demo project is missing: start the server with `latchkey dev`, which seeds it.", http.StatusNotFound)
			return
		}
		tok, err := projects.PublicToken(ctx, p.ID)
		if err != nil {
			http.Error(w, "The demo project has no public token.", http.StatusInternalServerError)
			return
		}
		v := demoView{ProjectName: p.Name, PublicToken: tok, BaseURL: baseURL, DiscoveryTry: DemoDiscoveryTry}
		for _, d := range DemoOrgs {
			if _, err := orgs.BySlug(ctx, p.ID, d.Slug); err != nil {
				continue
			}
			rule := "Anyone with an email address may join."
			if d.JIT == organization.Restricted {
				rule = "Only addresses at " + d.Domains[0] + " may join."
			}
			v.Orgs = append(v.Orgs, demoOrg{Name: d.Name, Slug: d.Slug, Rule: rule, Member: d.Member, Try: d.Try,
				Products: d.Products, MFA: d.MFA})
		}
		// The page's one inline script (mounting the widgets) runs by its
		// nonce; the widget itself loads from this origin.
		v.Nonce = httpapi.NewNonce()
		httpapi.SetPageCSP(w, httpapi.CSP{Nonce: v.Nonce, InlineStyles: true, ConnectSrc: originOf(baseURL)})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if err := demoTemplate().Execute(w, v); err != nil {
			http.Error(w, "render failed", http.StatusInternalServerError)
		}
	})
}

// originOf is the scheme and host of the base URL the widget calls, for
// the page's connect-src (it may differ from the page's own origin).
func originOf(base string) []string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return nil
	}
	return []string{u.Scheme + "://" + u.Host}
}
