package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/latchkey/latchkey/internal/rbac"
)

// projectRBAC manages a project's RBAC policy: `set` replaces its custom
// part (resources, roles, scopes) from a JSON file after validating it, in
// one transaction; `get` prints the custom part, or with --effective the
// policy as served (built-in roles and resources included). A set that
// removes a role still assigned (to members, in organizations' email
// assignments, in SAML connections' assignments) is refused with the list
// of those assignments; with --force it removes them in the same
// transaction and lists them on stderr.
func projectRBAC(ctx context.Context, env Env) error {
	if len(env.Args) < 3 || (env.Args[2] != "set" && env.Args[2] != "get") {
		return fmt.Errorf("usage: latchkey project rbac set --project ID --file policy.json [--force] | get --project ID [--effective]")
	}
	fs := flag.NewFlagSet("project rbac "+env.Args[2], flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	id := fs.String("project", "", "project id (required)")
	file := fs.String("file", "", "set: policy JSON file: {\"resources\":[...],\"roles\":[...],\"scopes\":[...]}")
	effective := fs.Bool("effective", false, "get: print the policy as served, built-in part included")
	force := fs.Bool("force", false, "set: remove the assignments of the roles the new policy removes, instead of refusing")
	if err := fs.Parse(env.Args[3:]); err != nil {
		return err
	}
	if *id == "" {
		return fmt.Errorf("--project is required")
	}
	a, err := openApp(ctx, env)
	if err != nil {
		return err
	}
	defer a.Close()
	if _, err := a.Projects.ByID(ctx, *id); err != nil {
		return fmt.Errorf("project %s: %w", *id, err)
	}
	svc := a.RBAC
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	if env.Args[2] == "get" {
		var out any
		if *effective {
			out, err = svc.Policy(ctx, *id)
		} else {
			out, err = svc.Custom(ctx, *id)
		}
		if err != nil {
			return err
		}
		return enc.Encode(out)
	}
	if *file == "" {
		return fmt.Errorf("--file is required")
	}
	raw, err := os.ReadFile(*file)
	if err != nil {
		return err
	}
	var pol rbac.Policy
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pol); err != nil {
		return fmt.Errorf("%s: not a policy document: %w", *file, err)
	}
	if !*force {
		stored, err := svc.SetCustom(ctx, *id, pol)
		if _, inUse := errors.AsType[*rbac.RolesInUseError](err); inUse {
			return fmt.Errorf("%w\nremove these assignments first, or pass --force to remove them with the roles", err)
		}
		if err != nil {
			return err
		}
		return enc.Encode(stored)
	}
	stored, dropped, err := svc.SetCustomDropping(ctx, *id, pol)
	if err != nil {
		return err
	}
	for _, r := range dropped {
		fmt.Fprintf(env.Stderr, "removed assignment: %s\n", r)
	}
	return enc.Encode(stored)
}
