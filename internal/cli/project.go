package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/project"
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

func projectCmd(ctx context.Context, env Env) error {
	if len(env.Args) < 2 {
		return fmt.Errorf("missing subcommand: create, list, update, oauth, token-profile, session-migration, rbac, add-redirect-url, add-origin, rotate-secret, secrets or retire-secret")
	}
	fs := flag.NewFlagSet("project "+env.Args[1], flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	var name, id, url, origin string
	var live bool
	var urls, origins, types multi
	switch env.Args[1] {
	case "create":
		fs.StringVar(&name, "name", "", "project name (required)")
		fs.Var(&urls, "redirect-url", "redirect URL registered for every type (repeatable)")
		fs.Var(&origins, "origin", "authorized browser origin (repeatable)")
		fs.BoolVar(&live, "live", false, "create a live project (default: test)")
	case "add-redirect-url":
		fs.StringVar(&id, "project", "", "project id (required)")
		fs.StringVar(&url, "url", "", "redirect URL (required)")
		fs.Var(&types, "type", "redirect type (repeatable; default: every type)")
	case "add-origin":
		fs.StringVar(&id, "project", "", "project id (required)")
		fs.StringVar(&origin, "origin", "", "origin, e.g. https://app.example.com (required)")
	case "update":
		return projectUpdate(ctx, env)
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
	case "list":
	default:
		return fmt.Errorf("unknown subcommand %q", env.Args[1])
	}
	if err := fs.Parse(env.Args[2:]); err != nil {
		return err
	}
	projects, closeDB, err := openProjects(ctx, env)
	if err != nil {
		return err
	}
	defer closeDB()
	enc := json.NewEncoder(env.Stdout)
	switch env.Args[1] {
	case "create":
		if name == "" {
			return fmt.Errorf("--name is required")
		}
		e := ids.Test
		if live {
			e = ids.Live
		}
		c, err := projects.Create(ctx, project.CreateParams{Name: name, Env: e, RedirectURLs: urls, Origins: origins})
		if err != nil {
			return err
		}
		return enc.Encode(map[string]string{"project_id": c.Project.ID, "secret": c.Secret, "public_token": c.PublicToken})
	case "list":
		ps, err := projects.List(ctx)
		if err != nil {
			return err
		}
		for _, p := range ps {
			if err := enc.Encode(map[string]any{"project_id": p.ID, "name": p.Name, "env": p.Env, "products": p.Products}); err != nil {
				return err
			}
		}
		return nil
	case "add-redirect-url":
		if id == "" || url == "" {
			return fmt.Errorf("--project and --url are required")
		}
		rts := make([]project.RedirectType, 0, len(types))
		for _, t := range types {
			rts = append(rts, project.RedirectType(t))
		}
		return projects.AddRedirectURL(ctx, id, url, rts)
	default: // add-origin
		if id == "" || origin == "" {
			return fmt.Errorf("--project and --origin are required")
		}
		return projects.AddOrigin(ctx, id, origin)
	}
}
