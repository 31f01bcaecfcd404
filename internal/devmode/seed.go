package devmode

import (
	"context"
	"errors"
	"fmt"

	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// DemoProjectName names the project the seed creates.
const DemoProjectName = "Latchkey Demo"

// DemoOrg is one seeded organization.
type DemoOrg struct {
	Name, Slug, JIT string
	Domains         []string
	Member          string // an existing member's email
	// Tenants, when set, admit people of these OAuth tenants (OAuth
	// tenant JIT), e.g. a Google Workspace domain.
	Tenants map[string][]string
	// SSO, when set, gives the organization an active SAML and an active
	// OIDC connection to the dev identity providers (see SeedSSO), with
	// SSO JIT provisioning open to both.
	SSO bool
}

// DemoOrgs are the seeded organizations: one open to any email domain,
// one restricted to an allowed domain (and OAuth tenants), and one that
// logs in by SSO through the dev identity providers (its domain makes SSO
// discovery find its connections).
var DemoOrgs = []DemoOrg{
	{Name: "Acme Corp", Slug: "acme", JIT: organization.AllAllowed, Member: "ada@acme.test"},
	{Name: "Globex", Slug: "globex", JIT: organization.Restricted, Domains: []string{"globex.test"}, Member: "grace@globex.test",
		Tenants: map[string][]string{"google": {"globex.test"}, "microsoft": {"globex.test"}, "slack": {"globex.test"}}},
	{Name: "Initech", Slug: "initech", JIT: organization.Restricted, Domains: []string{"initech.test"},
		Member: "peter@initech.test", SSO: true},
}

// Seeded describes the demo data. Secret is set only when the project was
// created by this call (it is stored hashed and cannot be shown again).
type Seeded struct {
	Project     *project.Project
	PublicToken string
	Secret      string
}

// Seed creates the demo project, organizations and members when missing.
// It is idempotent: later runs find and keep what exists.
func Seed(ctx context.Context, projects *project.Store, orgs *organization.Store, baseURL string) (*Seeded, error) {
	out := &Seeded{}
	p, err := projects.ByName(ctx, DemoProjectName)
	switch {
	case errors.Is(err, store.ErrNotFound):
		created, err := projects.Create(ctx, project.CreateParams{Name: DemoProjectName,
			RedirectURLs: []string{baseURL + "/"}, Origins: []string{baseURL}})
		if err != nil {
			return nil, fmt.Errorf("devmode: seed project: %w", err)
		}
		p, out.Secret = created.Project, created.Secret
	case err != nil:
		return nil, fmt.Errorf("devmode: seed: %w", err)
	}
	out.Project = p
	if out.PublicToken, err = projects.PublicToken(ctx, p.ID); err != nil {
		return nil, err
	}
	for _, d := range DemoOrgs {
		o, err := orgs.BySlug(ctx, p.ID, d.Slug)
		if errors.Is(err, store.ErrNotFound) {
			name, slug, jit, domains := d.Name, d.Slug, d.JIT, d.Domains
			if domains == nil {
				domains = []string{}
			}
			set := organization.Settings{Name: &name, Slug: &slug, EmailJITProvisioning: &jit, EmailAllowedDomains: &domains}
			if d.Tenants != nil {
				restricted, tenants := organization.Restricted, d.Tenants
				set.OAuthTenantJITProvisioning, set.AllowedOAuthTenants = &restricted, &tenants
			}
			if d.SSO {
				all := organization.AllAllowed
				set.SSOJITProvisioning = &all
			}
			o, err = orgs.Create(ctx, p.ID, p.Env, set)
		}
		if err != nil {
			return nil, fmt.Errorf("devmode: seed %s: %w", d.Slug, err)
		}
		if _, err := orgs.MemberByEmail(ctx, orgs.DB().Read(), o.OrganizationID, d.Member); errors.Is(err, store.ErrNotFound) {
			if _, err := orgs.CreateMember(ctx, orgs.DB(), o, p.Env, organization.NewMember{Email: d.Member,
				Status: organization.StatusActive}); err != nil {
				return nil, fmt.Errorf("devmode: seed member: %w", err)
			}
		} else if err != nil {
			return nil, fmt.Errorf("devmode: seed member: %w", err)
		}
	}
	return out, nil
}
