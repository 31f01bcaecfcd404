package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// multi collects a repeatable string flag.
type multi []string

func (m *multi) String() string     { return fmt.Sprint(*m) }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func openProjects(ctx context.Context, env Env) (*project.Store, func(), error) {
	db, box, err := openDB(ctx, env)
	if err != nil {
		return nil, nil, err
	}
	return project.NewStore(db, clock.Real{}, box), func() { db.Close() }, nil
}

const projectSubcommands = "create, list, update, add-redirect-url, redirect-urls, remove-redirect-url, add-origin, origins, " +
	"remove-origin, oauth, token-profile, session-migration, rbac, rotate-secret, secrets, retire-secret"

func projectCmd(ctx context.Context, env Env) error {
	sub, err := subcommand(env, 1, "project", projectSubcommands)
	if err != nil {
		return err
	}
	switch sub {
	case "create":
		return projectCreate(ctx, env)
	case "list":
		return projectList(ctx, env)
	case "update":
		return projectUpdate(ctx, env)
	case "add-redirect-url", "redirect-urls", "remove-redirect-url":
		return projectRedirectURLs(ctx, env)
	case "add-origin", "origins", "remove-origin":
		return projectOrigins(ctx, env)
	case "oauth":
		return projectOAuth(ctx, env)
	case "token-profile":
		return projectTokenProfile(ctx, env)
	case "session-migration":
		return projectSessionMigration(ctx, env)
	case "rotate-secret", "secrets", "retire-secret":
		return secretCmd(ctx, env)
	case "rbac":
		return projectRBAC(ctx, env)
	default:
		return unknownSubcommand("project", sub, projectSubcommands)
	}
}

func projectCreate(ctx context.Context, env Env) error {
	fs := newFlags("project create")
	var urls, origins multi
	name := fs.String("name", "", "project name (required)")
	fs.Var(&urls, "redirect-url", "redirect URL registered for every type (repeatable)")
	fs.Var(&origins, "origin", "authorized browser origin (repeatable)")
	live := fs.Bool("live", false, "create a live project (default: test)")
	sdkMax := fs.Int("sdk-max-session-duration", 0, sdkMaxUsage())
	if err := parseFlags(fs, env.Args[2:]); err != nil {
		return err
	}
	if err := required(fs.Name(), *name == "", "--name is"); err != nil {
		return err
	}
	// CreateParams takes 0 as "the default": an explicit 0 is refused by
	// the range check, as project update refuses it.
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "sdk-max-session-duration" })
	if given && !project.ValidSessionDuration(*sdkMax) {
		return usageErrorf(fs.Name(), "--sdk-max-session-duration must be %d to %d minutes",
			project.MinSessionDurationMinutes, project.MaxSessionDurationMinutes)
	}
	projects, log, closeDB, err := openAudited(ctx, env)
	if err != nil {
		return err
	}
	defer closeDB()
	e := ids.Test
	if *live {
		e = ids.Live
	}
	// The project's id exists only inside the creation's transaction.
	record := func(q store.Querier, projectID string) error {
		return configChanged(ctx, log, projectID, "create", map[string]any{"name": *name, "env": string(e),
			"redirect_urls": []string(urls), "origins": []string(origins)})(q)
	}
	c, err := projects.Create(ctx, project.CreateParams{Name: *name, Env: e, RedirectURLs: urls, Origins: origins,
		SDKMaxSessionDurationMinutes: *sdkMax}, record)
	if err != nil {
		return err
	}
	return newEncoder(env.Stdout).Encode(map[string]string{"project_id": c.Project.ID, "secret": c.Secret, "public_token": c.PublicToken})
}

func projectList(ctx context.Context, env Env) error {
	if err := parseFlags(newFlags("project list"), env.Args[2:]); err != nil {
		return err
	}
	projects, closeDB, err := openProjects(ctx, env)
	if err != nil {
		return err
	}
	defer closeDB()
	ps, err := projects.List(ctx)
	if err != nil {
		return err
	}
	enc := newEncoder(env.Stdout)
	for _, p := range ps {
		if err := enc.Encode(map[string]any{"project_id": p.ID, "name": p.Name, "env": p.Env, "products": p.Products}); err != nil {
			return err
		}
	}
	return nil
}
