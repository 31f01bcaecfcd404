package cli

import (
	"context"
	"flag"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/impersonation"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// memberCmd holds the operator's actions on one member. Members are
// otherwise managed through the backend API; impersonation is here because
// it is an operator's act, not the customer application's.
func memberCmd(ctx context.Context, env Env) error {
	sub, err := subcommand(env, 1, "member", "impersonate")
	if err != nil {
		return err
	}
	if sub != "impersonate" {
		return unknownSubcommand("member", sub, "impersonate")
	}
	fs := newFlags("member impersonate")
	var m impersonation.MintParams
	var reason string
	fs.StringVar(&m.ProjectID, "project", "", "project id (required)")
	fs.StringVar(&m.OrganizationID, "org", "", "the member's organization id (required)")
	fs.StringVar(&m.MemberID, "member", "", "member id (required)")
	fs.StringVar(&m.ImpersonatorEmail, "impersonator", "", "your email address, recorded in the session and the audit log (required)")
	fs.StringVar(&m.ImpersonatorID, "impersonator-id", "", "your id in your own staff directory (default: the email address)")
	fs.StringVar(&m.RedirectURL, "redirect", "", "one of the project's login redirect URLs (default: its default login URL)")
	fs.StringVar(&reason, "reason", "", "why, for the audit log (a ticket number...)")
	if err := parseFlags(fs, env.Args[2:]); err != nil {
		return err
	}
	if err := required(fs.Name(), m.ProjectID == "" || m.OrganizationID == "" || m.MemberID == "" || m.ImpersonatorEmail == "",
		"--project, --org, --member and --impersonator are"); err != nil {
		return err
	}
	// Left out, the id is the --impersonator address; given empty, it is
	// a mistake (an unset shell variable), not a request for that.
	var idGiven bool
	fs.Visit(func(f *flag.Flag) { idGiven = idGiven || f.Name == "impersonator-id" })
	if idGiven && m.ImpersonatorID == "" {
		return usageErrorf(fs.Name(), "--impersonator-id must not be empty; leave it out to record the --impersonator address")
	}
	db, box, err := openDB(ctx, env)
	if err != nil {
		return err
	}
	defer db.Close()
	c := clock.Real{}
	projects := project.NewStore(db, c, box)
	if _, err := requireProject(ctx, projects, m.ProjectID); err != nil {
		return err
	}
	log := audit.New(db, c)
	imp := impersonation.New(impersonation.Deps{DB: db, Clock: c, Projects: projects,
		Orgs: organization.NewStore(db, c)})
	minted, err := Impersonate(ctx, imp, log, m, reason)
	if err != nil {
		return err
	}
	return newEncoder(env.Stdout).Encode(minted)
}

// Impersonate mints an impersonation token and files its audit event in
// the same transaction: if the event cannot be written, no token exists.
// A reason impersonation.CheckReason refuses mints nothing.
func Impersonate(ctx context.Context, imp *impersonation.Service, log *audit.Log, m impersonation.MintParams,
	reason string) (*impersonation.Minted, error) {
	reason, err := impersonation.CheckReason(reason)
	if err != nil {
		return nil, err
	}
	return imp.Mint(ctx, m, func(q store.Querier, t *impersonation.Minted) error {
		d := map[string]any{"impersonation_token_id": t.TokenID, "impersonator_id": t.ImpersonatorID,
			"impersonator_email_address": t.ImpersonatorEmailAddress, "expires_at": t.ExpiresAt}
		if reason != "" {
			d["reason"] = reason
		}
		return log.RecordIn(ctx, q, audit.Event{ProjectID: m.ProjectID, Type: audit.ImpersonationTokenCreated,
			OrganizationID: t.OrganizationID, MemberID: t.MemberID, Actor: "cli", Details: d})
	})
}
