package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
)

// keysCmd manages a project's JWT signing keys: rotate adds a new signing
// key (old ones stay in the JWKS), retire removes one, list shows them.
func keysCmd(ctx context.Context, env Env) error {
	const usage = "usage: latchkey keys rotate|list --project ID, or keys retire --project ID --kid KID"
	if len(env.Args) < 2 {
		return fmt.Errorf(usage)
	}
	sub := env.Args[1]
	fs := flag.NewFlagSet("keys "+sub, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	id := fs.String("project", "", "project id (required)")
	var kid *string
	switch sub {
	case "rotate", "list":
	case "retire":
		kid = fs.String("kid", "", "key id to remove from the JWKS (required)")
	default:
		return fmt.Errorf("unknown subcommand %q; %s", sub, usage)
	}
	if err := fs.Parse(env.Args[2:]); err != nil {
		return err
	}
	if *id == "" || (kid != nil && *kid == "") {
		return fmt.Errorf(usage)
	}
	projects, closeDB, err := openProjects(ctx, env)
	if err != nil {
		return err
	}
	defer closeDB()
	enc := json.NewEncoder(env.Stdout)
	switch sub {
	case "rotate":
		newKID, err := projects.RotateSigningKey(ctx, *id)
		if err != nil {
			return err
		}
		return enc.Encode(map[string]string{"kid": newKID,
			"note": "new signing key active; previous keys stay published until retired"})
	case "list":
		keys, err := projects.ListSigningKeys(ctx, *id)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := enc.Encode(k); err != nil {
				return err
			}
		}
		return nil
	default: // retire
		if err := projects.RetireSigningKey(ctx, *id, *kid); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "key %s retired: it is no longer in the JWKS and tokens it signed no longer verify\n", *kid)
		return nil
	}
}

// secretCmd handles `project rotate-secret`, `project secrets` and
// `project retire-secret`.
func secretCmd(ctx context.Context, env Env) error {
	sub := env.Args[1]
	fs := flag.NewFlagSet("project "+sub, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	id := fs.String("project", "", "project id (required)")
	keepOld := fs.Bool("keep-old", false, "rotate-secret: keep earlier secrets valid until retire-secret (zero-downtime switch)")
	secretID := fs.String("secret-id", "", "retire-secret: the secret to revoke (see project secrets)")
	if err := fs.Parse(env.Args[2:]); err != nil {
		return err
	}
	if *id == "" || (sub == "retire-secret" && *secretID == "") {
		return fmt.Errorf("--project is required (and --secret-id for retire-secret)")
	}
	projects, closeDB, err := openProjects(ctx, env)
	if err != nil {
		return err
	}
	defer closeDB()
	enc := json.NewEncoder(env.Stdout)
	switch sub {
	case "rotate-secret":
		sid, secret, err := projects.RotateSecret(ctx, *id, *keepOld)
		if err != nil {
			return err
		}
		return enc.Encode(map[string]any{"project_id": *id, "secret_id": sid, "secret": secret, "previous_secrets_valid": *keepOld})
	case "secrets":
		list, err := projects.ListSecrets(ctx, *id)
		if err != nil {
			return err
		}
		for _, s := range list {
			if err := enc.Encode(s); err != nil {
				return err
			}
		}
		return nil
	default: // retire-secret
		if err := projects.RetireSecret(ctx, *id, *secretID); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "secret %s retired\n", *secretID)
		return nil
	}
}
