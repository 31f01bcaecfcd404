package cli

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// openAudited opens the project store and the audit log on one database.
func openAudited(ctx context.Context, env Env) (*project.Store, *audit.Log, func(), error) {
	db, box, err := openDB(ctx, env)
	if err != nil {
		return nil, nil, nil, err
	}
	return project.NewStore(db, clock.Real{}, box), audit.New(db, clock.Real{}), func() { db.Close() }, nil
}

// audited files a CLI change in the project's audit log inside the change's
// own transaction (project.Also), with the changed key's or secret's id
// under idField: if the event cannot be written, the change is rolled back
// rather than committed unrecorded, or, for rotate-secret, committed with
// the new secret never shown.
func audited(ctx context.Context, log *audit.Log, projectID, typ, idField string, details map[string]any) project.Also {
	return func(q store.Querier, id string) error {
		d := map[string]any{idField: id}
		maps.Copy(d, details)
		return log.RecordIn(ctx, q, audit.Event{ProjectID: projectID, Type: typ, Actor: "cli", Details: d})
	}
}

// keysCmd manages a project's JWT signing keys: rotate adds a new key,
// published at once and signing a minute later (project.SigningKeyLead;
// old ones stay in the JWKS), retire removes one, list shows them.
func keysCmd(ctx context.Context, env Env) error {
	const choices = "rotate, list, retire"
	sub, err := subcommand(env, 1, "keys", choices)
	if err != nil {
		return err
	}
	fs := newFlags("keys " + sub)
	id := fs.String("project", "", "project id (required)")
	var kid *string
	switch sub {
	case "rotate", "list":
	case "retire":
		kid = fs.String("kid", "", "key id to remove from the JWKS (required)")
	default:
		return unknownSubcommand("keys", sub, choices)
	}
	if err := parseFlags(fs, env.Args[2:]); err != nil {
		return err
	}
	if err := requiredWithProject(fs.Name(), *id, "kid", kid); err != nil {
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
	switch sub {
	case "rotate":
		k, err := projects.RotateSigningKey(ctx, *id, audited(ctx, log, *id, audit.SigningKeyRotated, "kid", nil))
		if err != nil {
			return err
		}
		signsAt := store.Time(k.ActivatesAt)
		return newEncoder(env.Stdout).Encode(map[string]any{"kid": k.KID, "activates_at": k.ActivatesAt,
			"note": fmt.Sprintf("new key published in the JWKS now; it signs new tokens from %s (in %s), "+
				"the previous key until then; previous keys stay published until retired",
				signsAt.Format(time.RFC3339), project.SigningKeyLead)})
	case "list":
		keys, err := projects.ListSigningKeys(ctx, *id)
		if err != nil {
			return err
		}
		return encodeLines(env, keys)
	default: // retire
		err := projects.RetireSigningKey(ctx, *id, *kid, audited(ctx, log, *id, audit.SigningKeyRetired, "kid", nil))
		if project.IsNotFound(err) {
			return fmt.Errorf("%w (see latchkey keys list --project %s)", err, *id)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "latchkey keys retire: key %s is no longer in the JWKS; tokens it signed no longer verify\n", *kid)
		return newEncoder(env.Stdout).Encode(map[string]any{"project_id": *id, "kid": *kid, "retired": true})
	}
}

// secretCmd handles `project rotate-secret`, `project secrets` and
// `project retire-secret`, each with only its own flags: --secret-id given
// to rotate-secret must not pass for a rotation that revokes every secret.
func secretCmd(ctx context.Context, env Env) error {
	sub := env.Args[1]
	fs := newFlags("project " + sub)
	id := fs.String("project", "", "project id (required)")
	var keepOld bool
	var secretID *string
	switch sub {
	case "rotate-secret":
		fs.BoolVar(&keepOld, "keep-old", false, "keep earlier secrets valid until retire-secret (zero-downtime switch)")
	case "retire-secret":
		secretID = fs.String("secret-id", "", "the secret to revoke, see project secrets (required)")
	}
	if err := parseFlags(fs, env.Args[2:]); err != nil {
		return err
	}
	if err := requiredWithProject(fs.Name(), *id, "secret-id", secretID); err != nil {
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
	switch sub {
	case "rotate-secret":
		sid, secret, err := projects.RotateSecret(ctx, *id, keepOld,
			audited(ctx, log, *id, audit.SecretRotated, "secret_id", map[string]any{"previous_secrets_valid": keepOld}))
		if err != nil {
			return err
		}
		return newEncoder(env.Stdout).Encode(map[string]any{"project_id": *id, "secret_id": sid, "secret": secret,
			"previous_secrets_valid": keepOld})
	case "secrets":
		list, err := projects.ListSecrets(ctx, *id)
		if err != nil {
			return err
		}
		return encodeLines(env, list)
	default: // retire-secret
		err := projects.RetireSecret(ctx, *id, *secretID, audited(ctx, log, *id, audit.SecretRetired, "secret_id", nil))
		if project.IsNotFound(err) {
			return fmt.Errorf("%w (see latchkey project secrets --project %s)", err, *id)
		}
		if err != nil {
			return err
		}
		return newEncoder(env.Stdout).Encode(map[string]any{"project_id": *id, "secret_id": *secretID, "retired": true})
	}
}
