package cli

import (
	"context"
	"fmt"
	"slices"

	"github.com/latchkey/latchkey/internal/project"
)

// projectRedirectURLs handles add-redirect-url, redirect-urls and
// remove-redirect-url. A type's first URL is its default (what a flow uses
// when the request names none); --default makes another one the default.
// A change prints one JSON object naming what it did and is filed in the
// audit log (config_changed) in its own transaction.
func projectRedirectURLs(ctx context.Context, env Env) error {
	sub := env.Args[1]
	fs := newFlags("project " + sub)
	id := fs.String("project", "", "project id (required)")
	var url *string
	var types multi
	var makeDefault *bool
	switch sub {
	case "add-redirect-url":
		url = fs.String("url", "", "redirect URL (required)")
		fs.Var(&types, "type", "redirect type (repeatable; default: every type)")
		makeDefault = fs.Bool("default", false, "make the URL its types' default (it may already be registered)")
	case "remove-redirect-url":
		url = fs.String("url", "", "redirect URL (required)")
		fs.Var(&types, "type", "remove it only from this type (repeatable; default: every type it has)")
	}
	if err := parseFlags(fs, env.Args[2:]); err != nil {
		return err
	}
	if err := requiredWithProject(fs.Name(), *id, "url", url); err != nil {
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
	rts := make([]project.RedirectType, 0, len(types))
	for _, t := range types {
		rts = append(rts, project.RedirectType(t))
	}
	if sub == "redirect-urls" {
		list, err := projects.RedirectURLs(ctx, *id)
		if err != nil {
			return err
		}
		return encodeLines(env, list)
	}
	if len(rts) == 0 && sub == "add-redirect-url" {
		rts = project.RedirectTypes
	}
	if len(rts) == 0 { // remove-redirect-url from every type it has: name them
		list, err := projects.RedirectURLs(ctx, *id)
		if err != nil {
			return err
		}
		for _, r := range list {
			if r.URL == *url && !slices.Contains(rts, r.Type) {
				rts = append(rts, r.Type)
			}
		}
	}
	out := map[string]any{"project_id": *id, "url": *url, "types": rts}
	details := map[string]any{"url": *url, "types": rts}
	also := projectAlso(configChanged(ctx, log, *id, sub, details))
	switch {
	case sub == "remove-redirect-url":
		err = projects.RemoveRedirectURL(ctx, *id, *url, rts, also)
		out["removed"] = true
	case *makeDefault:
		details["default"] = true
		err = projects.AddRedirectURLAsDefault(ctx, *id, *url, rts, also)
		out["default"] = true
	default:
		err = projects.AddRedirectURL(ctx, *id, *url, rts, also)
	}
	if project.IsNotFound(err) {
		return fmt.Errorf("%w (see latchkey project redirect-urls --project %s)", err, *id)
	}
	if err != nil {
		return err
	}
	return newEncoder(env.Stdout).Encode(out)
}

// projectOrigins handles add-origin, origins and remove-origin. Origins are
// stored as a browser sends them (lower case, no default port), and
// remove-origin normalises its argument the same way; a change prints the
// origin as stored.
func projectOrigins(ctx context.Context, env Env) error {
	sub := env.Args[1]
	fs := newFlags("project " + sub)
	id := fs.String("project", "", "project id (required)")
	var origin *string
	if sub != "origins" {
		origin = fs.String("origin", "", "origin, e.g. https://app.example.com (required)")
	}
	if err := parseFlags(fs, env.Args[2:]); err != nil {
		return err
	}
	if err := requiredWithProject(fs.Name(), *id, "origin", origin); err != nil {
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
	if sub == "origins" {
		list, err := projects.Origins(ctx, *id)
		if err != nil {
			return err
		}
		out := make([]map[string]string, len(list))
		for i, o := range list {
			out[i] = map[string]string{"origin": o}
		}
		return encodeLines(env, out)
	}
	norm, err := project.NormalizeOrigin(*origin)
	if err != nil {
		return err
	}
	also := projectAlso(configChanged(ctx, log, *id, sub, map[string]any{"origin": norm}))
	out := map[string]any{"project_id": *id, "origin": norm}
	if sub == "remove-origin" {
		err = projects.RemoveOrigin(ctx, *id, *origin, also)
		out["removed"] = true
	} else {
		err = projects.AddOrigin(ctx, *id, *origin, also)
	}
	if project.IsNotFound(err) {
		return fmt.Errorf("%w (see latchkey project origins --project %s)", err, *id)
	}
	if err != nil {
		return err
	}
	return newEncoder(env.Stdout).Encode(out)
}
