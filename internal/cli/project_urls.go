package cli

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/project"
)

// projectRedirectURLs handles add-redirect-url, redirect-urls and
// remove-redirect-url. A type's first URL is its default (what a flow uses
// when the request names none); --default makes another one the default.
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
	projects, closeDB, err := openProject(ctx, env, *id)
	if err != nil {
		return err
	}
	defer closeDB()
	rts := make([]project.RedirectType, 0, len(types))
	for _, t := range types {
		rts = append(rts, project.RedirectType(t))
	}
	switch {
	case sub == "redirect-urls":
		list, err := projects.RedirectURLs(ctx, *id)
		if err != nil {
			return err
		}
		return encodeLines(env, list)
	case sub == "remove-redirect-url":
		if err := projects.RemoveRedirectURL(ctx, *id, *url, rts); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "redirect URL %s removed\n", *url)
		return nil
	case *makeDefault:
		return projects.AddRedirectURLAsDefault(ctx, *id, *url, rts)
	default:
		return projects.AddRedirectURL(ctx, *id, *url, rts)
	}
}

// projectOrigins handles add-origin, origins and remove-origin. Origins are
// stored as a browser sends them (lower case, no default port), and
// remove-origin normalises its argument the same way.
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
	projects, closeDB, err := openProject(ctx, env, *id)
	if err != nil {
		return err
	}
	defer closeDB()
	switch sub {
	case "origins":
		list, err := projects.Origins(ctx, *id)
		if err != nil {
			return err
		}
		out := make([]map[string]string, len(list))
		for i, o := range list {
			out[i] = map[string]string{"origin": o}
		}
		return encodeLines(env, out)
	case "remove-origin":
		if err := projects.RemoveOrigin(ctx, *id, *origin); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "origin %s removed\n", *origin)
		return nil
	default: // add-origin
		return projects.AddOrigin(ctx, *id, *origin)
	}
}
