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

// DemoOrg is one seeded organization, with what the demo page offers for
// it.
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
	// MFA, when set, requires MFA of every member.
	MFA bool
	// Products are the login widget's products on the demo page, and Try
	// says in a sentence or two how to try them.
	Products []string
	Try      string
}

// DemoOrgs are the seeded organizations, one per family of flows: email
// and passwords open to anyone, OAuth tenant JIT, enterprise SSO through
// the dev identity providers (its domain makes SSO discovery find its
// connections), and MFA required for all.
var DemoOrgs = []DemoOrg{
	{Name: "Acme Corp", Slug: "acme", JIT: organization.AllAllowed, Member: "ada@acme.test",
		Products: []string{"emailMagicLinks", "emailOtp", "passwords", "oauth"},
		Try: "Email codes, magic links and passwords. Type any address: the code or link is in the dev mailbox. " +
			"Or choose the password option: a new address signs up with a strong password, and " +
			"\"Forgot password?\" mails a reset link."},
	{Name: "Globex", Slug: "globex", JIT: organization.Restricted, Domains: []string{"globex.test"}, Member: "grace@globex.test",
		Tenants:  map[string][]string{"google": {"globex.test"}, "microsoft": {"globex.test"}, "slack": {"globex.test"}},
		Products: []string{"emailOtp", "oauth"},
		Try: "OAuth with tenant JIT. The provider buttons go to the built-in mock providers. Globex admits its " +
			"Google, Microsoft and Slack tenant globex.test: on the mock Google page choose Pat Contractor " +
			"(pat@contractor.test), who joins although the address is not at globex.test."},
	{Name: "Initech", Slug: "initech", JIT: organization.Restricted, Domains: []string{"initech.test"},
		Member: "peter@initech.test", SSO: true, Products: []string{"sso", "emailOtp"},
		Try: "Enterprise SSO. The SAML and OIDC buttons go to the dev identity providers; pick a person or type " +
			"any @initech.test address. New people join by SSO JIT (try Joanna on the SAML page: her groups " +
			"travel in the signed assertion, and the admins group makes her an admin through the connection's " +
			"group role assignment)."},
	{Name: "Hooli", Slug: "hooli", JIT: organization.AllAllowed, Member: "gavin@hooli.test", MFA: true,
		Products: []string{"emailOtp", "passwords"},
		Try: "MFA required for everyone. Log in with any address by email code or password, then enroll an " +
			"authenticator app (scan the QR code) or a phone number (the texted code is in the dev mailbox), " +
			"and keep the backup codes."},
}

// DemoDiscoveryTry says how to try the discovery widget of the demo page.
const DemoDiscoveryTry = "Discovery: start from an email address, then choose the organization. Try " +
	"grace@globex.test (a member of Globex), any @globex.test or @initech.test address (those organizations " +
	"admit the domain), or a new address to create an organization. \"Use single sign-on\" with an " +
	"@initech.test address finds Initech's connections by domain; the mock Google works here too."

// Seeded describes the demo data. Secret is set only when the project was
// created by this call (it is stored hashed and cannot be shown again).
type Seeded struct {
	Project     *project.Project
	PublicToken string
	Secret      string
}

// Seed creates the demo project, organizations and members when missing.
// It is idempotent: later runs find and keep what exists, and add baseURL
// to the project's redirect URLs and origins when it is new.
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
	default:
		// Seeded by a run on another address (the base URL follows
		// --addr): the demo page there must be the project's too. Both
		// adds keep what exists.
		if err := projects.AddRedirectURL(ctx, p.ID, baseURL+"/", nil); err != nil {
			return nil, fmt.Errorf("devmode: seed redirect url: %w", err)
		}
		if err := projects.AddOrigin(ctx, p.ID, baseURL); err != nil {
			return nil, fmt.Errorf("devmode: seed origin: %w", err)
		}
	}
	out.Project = p
	if out.PublicToken, err = projects.PublicToken(ctx, p.ID); err != nil {
		return nil, err
	}
	for _, d := range DemoOrgs {
		o, err := orgs.BySlug(ctx, p.ID, d.Slug)
		if errors.Is(err, store.ErrNotFound) {
			name, slug, jit, domains, invites := d.Name, d.Slug, d.JIT, d.Domains, organization.AllAllowed
			if domains == nil {
				domains = []string{}
			}
			// Invites explicitly: a create naming other auth settings
			// would leave them NOT_ALLOWED, and a demo admin may invite.
			set := organization.Settings{Name: &name, Slug: &slug, EmailJITProvisioning: &jit, EmailAllowedDomains: &domains,
				EmailInvites: &invites}
			if d.Tenants != nil {
				restricted, tenants := organization.Restricted, d.Tenants
				set.OAuthTenantJITProvisioning, set.AllowedOAuthTenants = &restricted, &tenants
			}
			if d.SSO {
				all := organization.AllAllowed
				set.SSOJITProvisioning = &all
			}
			if d.MFA {
				required := organization.MFARequiredForAll
				set.MFAPolicy = &required
			}
			o, err = orgs.Create(ctx, p.ID, p.Env, set)
		}
		if err != nil {
			return nil, fmt.Errorf("devmode: seed %s: %w", d.Slug, err)
		}
		if err := seedMember(ctx, orgs, o, p, d.Member); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// seedMember makes email an active member of o with a verified (proven)
// address, as after a first login: discovery offers Globex and Initech to
// their domains' people (email and SSO JIT) only when such a member
// vouches for the domain (organization.JoinableByDomain). A member seeded
// before that rule is verified now.
func seedMember(ctx context.Context, orgs *organization.Store, o *organization.Organization, p *project.Project, email string) error {
	return orgs.DB().Tx(ctx, func(q store.Querier) error {
		m, err := orgs.MemberByEmail(ctx, q, o.OrganizationID, email)
		if errors.Is(err, store.ErrNotFound) {
			m, err = orgs.CreateMember(ctx, q, o, p.Env, organization.NewMember{Email: email, Status: organization.StatusActive})
		}
		if err != nil {
			return fmt.Errorf("devmode: seed member: %w", err)
		}
		if m.EmailAddressVerified {
			return nil
		}
		if _, err := orgs.MarkEmailVerified(ctx, q, m); err != nil {
			return fmt.Errorf("devmode: seed member: %w", err)
		}
		return nil
	})
}
