package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	verb, err := subcommand(env, 2, "project rbac", "set, get")
	if err != nil {
		return err
	}
	fs := newFlags("project rbac " + verb)
	id := fs.String("project", "", "project id (required)")
	var file string
	var effective, force bool
	switch verb {
	case "set":
		fs.StringVar(&file, "file", "", "policy JSON file: {\"resources\":[...],\"roles\":[...],\"scopes\":[...]} (required)")
		fs.BoolVar(&force, "force", false, "remove the assignments of the roles the new policy removes, instead of refusing")
	case "get":
		fs.BoolVar(&effective, "effective", false, "print the policy as served, built-in part included")
	default:
		return unknownSubcommand("project rbac", verb, "set, get")
	}
	if err := parseFlags(fs, env.Args[3:]); err != nil {
		return err
	}
	if err := required(fs.Name(), *id == "" || (verb == "set" && file == ""), "--project (and --file for set) are"); err != nil {
		return err
	}
	a, err := openApp(ctx, env)
	if err != nil {
		return err
	}
	defer a.Close()
	if _, err := requireProject(ctx, a.Projects, *id); err != nil {
		return err
	}
	svc := a.RBAC
	enc := newEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	if verb == "get" {
		var out any
		if effective {
			out, err = svc.Policy(ctx, *id)
		} else {
			out, err = svc.Custom(ctx, *id)
		}
		if err != nil {
			return err
		}
		return enc.Encode(out)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var pol rbac.Policy
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pol); err != nil {
		return fmt.Errorf("%s: not a policy document: %w", file, err)
	}
	if !force {
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
