package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/trustedauth"
)

// projectSessionMigration sets where b2b/sessions/migrate checks the
// session tokens of the provider a project moves from: that provider's
// OpenID Connect userinfo endpoint ("-" turns migration off).
func projectSessionMigration(ctx context.Context, env Env) error {
	fs := flag.NewFlagSet("project session-migration", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	id := fs.String("project", "", "project id (required)")
	userinfo := fs.String("userinfo-url", "", "the previous provider's userinfo endpoint (https), or - to turn migration off (required)")
	if err := fs.Parse(env.Args[2:]); err != nil {
		return err
	}
	if *id == "" || *userinfo == "" {
		return fmt.Errorf("--project and --userinfo-url are required")
	}
	db, box, err := openDB(ctx, env)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := project.NewStore(db, clock.Real{}, box).ByID(ctx, *id); err != nil {
		return fmt.Errorf("project %s: %w", *id, err)
	}
	u := *userinfo
	if u == "-" {
		u = ""
	}
	if err := trustedauth.New(trustedauth.Deps{DB: db, Clock: clock.Real{}}).SetMigrationUserinfoURL(ctx, *id, u); err != nil {
		return err
	}
	return json.NewEncoder(env.Stdout).Encode(map[string]string{"project_id": *id, "userinfo_url": u})
}
