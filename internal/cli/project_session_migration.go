package cli

import (
	"context"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/trustedauth"
)

// projectSessionMigration sets where b2b/sessions/migrate checks the
// session tokens of the provider a project moves from: that provider's
// OpenID Connect userinfo endpoint ("-" turns migration off).
func projectSessionMigration(ctx context.Context, env Env) error {
	fs := newFlags("project session-migration")
	id := fs.String("project", "", "project id (required)")
	userinfo := fs.String("userinfo-url", "", "the previous provider's userinfo endpoint (https), or - to turn migration off (required)")
	if err := parseFlags(fs, env.Args[2:]); err != nil {
		return err
	}
	if err := required(fs.Name(), *id == "" || *userinfo == "", "--project and --userinfo-url are"); err != nil {
		return err
	}
	projects, log, closeDB, err := openAudited(ctx, env)
	if err != nil {
		return err
	}
	defer closeDB()
	if _, err := requireProject(ctx, projects, *id); err != nil {
		return err
	}
	u := *userinfo
	if u == "-" {
		u = ""
	}
	record := configChanged(ctx, log, *id, "session-migration", map[string]any{"userinfo_url": u, "enabled": u != ""})
	svc := trustedauth.New(trustedauth.Deps{DB: projects.DB(), Clock: clock.Real{}})
	if err := svc.SetMigrationUserinfoURL(ctx, *id, u, record); err != nil {
		return err
	}
	return newEncoder(env.Stdout).Encode(map[string]string{"project_id": *id, "userinfo_url": u})
}
