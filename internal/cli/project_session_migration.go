package cli

import (
	"context"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/project"
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
	db, box, err := openDB(ctx, env)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := requireProject(ctx, project.NewStore(db, clock.Real{}, box), *id); err != nil {
		return err
	}
	u := *userinfo
	if u == "-" {
		u = ""
	}
	if err := trustedauth.New(trustedauth.Deps{DB: db, Clock: clock.Real{}}).SetMigrationUserinfoURL(ctx, *id, u); err != nil {
		return err
	}
	return newEncoder(env.Stdout).Encode(map[string]string{"project_id": *id, "userinfo_url": u})
}
