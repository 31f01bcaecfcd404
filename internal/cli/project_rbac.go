package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
	"github.com/latchkey/latchkey/internal/store"
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
	// The event names the roles, resources and scopes added and removed
	// and, with --force, the assignments removed with their roles.
	record := func(q store.Querier, old rbac.Policy, dropped []organization.RoleRef) error {
		d := policyChange(old, pol)
		d["file"] = file
		if force {
			d["force"] = true
			refs := make([]string, len(dropped))
			for i, r := range dropped {
				refs[i] = r.String()
			}
			d["removed_assignments"] = refs
		}
		return configChanged(ctx, a.Audit, *id, "rbac set", d)(q)
	}
	if !force {
		stored, err := svc.SetCustom(ctx, *id, pol, record)
		if _, inUse := errors.AsType[*rbac.RolesInUseError](err); inUse {
			return fmt.Errorf("%w\nremove these assignments first, or pass --force to remove them with the roles", err)
		}
		if err != nil {
			return err
		}
		return enc.Encode(stored)
	}
	stored, dropped, err := svc.SetCustomDropping(ctx, *id, pol, record)
	if err != nil {
		return err
	}
	for _, r := range dropped {
		fmt.Fprintf(env.Stderr, "removed assignment: %s\n", r)
	}
	return enc.Encode(stored)
}

// policyChange names what replacing the custom policy old with new adds
// and removes: role, resource and scope ids (a changed description or
// permission list of a kept id is listed under "changed").
func policyChange(old, new rbac.Policy) map[string]any {
	d := map[string]any{}
	diff := func(kind string, before, after map[string]string) {
		var added, removed, changed []string
		for id, v := range after {
			if w, ok := before[id]; !ok {
				added = append(added, id)
			} else if w != v {
				changed = append(changed, id)
			}
		}
		for id := range before {
			if _, ok := after[id]; !ok {
				removed = append(removed, id)
			}
		}
		for name, list := range map[string][]string{"added": added, "removed": removed, "changed": changed} {
			if len(list) > 0 {
				slices.Sort(list)
				d[kind+"_"+name] = list
			}
		}
	}
	index := func(p rbac.Policy) (roles, resources, scopes map[string]string) {
		roles, resources, scopes = map[string]string{}, map[string]string{}, map[string]string{}
		for _, r := range p.Roles {
			roles[r.RoleID] = jsonText(r)
		}
		for _, r := range p.Resources {
			resources[r.ResourceID] = jsonText(r)
		}
		for _, s := range p.Scopes {
			scopes[s.Scope] = jsonText(s)
		}
		return roles, resources, scopes
	}
	r0, s0, c0 := index(old)
	r1, s1, c1 := index(new)
	diff("roles", r0, r1)
	diff("resources", s0, s1)
	diff("scopes", c0, c1)
	return d
}

// jsonText is v as JSON, to compare two versions of a policy entry.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
