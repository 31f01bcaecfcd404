// Package cli implements the latchkey command: serve, dev, migrate,
// project, keys, member, audit and rekey. Each noun has its own file; Run
// dispatches.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/latchkey/latchkey/internal/config"
)

const usage = `latchkey: self-hosted B2B authentication

Usage:
  latchkey serve   [--addr :8080]     run the server (production mode)
  latchkey dev     [--addr 127.0.0.1:8080] [--force]   run with the demo seed and the dev mailbox
                                      (refused on a database with other projects, or under a
                                      public https LATCHKEY_BASE_URL, unless --force)
  latchkey migrate                    apply database migrations and exit
  latchkey project create --name N [--redirect-url URL]... [--origin ORIGIN]... [--live]
                   [--sdk-max-session-duration MIN]
  latchkey project list
  latchkey project update --project ID [--name N] [--products a,b] [--session-duration MIN]
                   [--sdk-max-session-duration MIN]
                   [--pkce-magic-links true|false] [--pkce-password-resets true|false]
                   [--pkce-sso true|false] [--pkce-oauth true|false] [--create-organization true|false]
                   [--disable-watermark true|false] [--slug-pattern URL-with-{{slug}}|-]
                   [--password-policy zxcvbn|luds] [--luds-min-length 8-64] [--luds-complexity 1-4]
                   [--idp-authorization-url URL|-]
  latchkey project add-redirect-url --project ID --url URL [--type login|signup|discovery|reset_password|invite]... [--default]
  latchkey project redirect-urls --project ID                 each URL with its type and whether it is the type's default
  latchkey project remove-redirect-url --project ID --url URL [--type T]...   (default: every type)
  latchkey project add-origin --project ID --origin ORIGIN
  latchkey project origins --project ID
  latchkey project remove-origin --project ID --origin ORIGIN
  latchkey project oauth --project ID --provider google|microsoft|hubspot|slack|github --client-id X
                         (--client-secret Y | --client-secret - | --client-secret-stdin | $LATCHKEY_OAUTH_CLIENT_SECRET)
                         [--issuer URL | --authorize-url URL --token-url URL --api-url URL]
  latchkey project token-profile create --project ID --issuer ISS --audience AUD (--jwks-url URL | --pem-file F...)
                         [--email-claim C] [--organization-id-claim C] [--name-claim C] [--token-id-claim C]
                         [--can-jit-provision] [--inactive] [--name N]
  latchkey project token-profile list --project ID
  latchkey project token-profile update --project ID --profile PID --active true|false
  latchkey project token-profile delete --project ID --profile PID
  latchkey project session-migration --project ID --userinfo-url URL|-   where b2b/sessions/migrate checks tokens
  latchkey project rbac set --project ID --file policy.json [--force]
  latchkey project rbac get --project ID [--effective]
  latchkey project rotate-secret --project ID [--keep-old]   new backend secret (shown once)
  latchkey project secrets --project ID                       list secret ids (never the secrets)
  latchkey project retire-secret --project ID --secret-id S
  latchkey keys rotate --project ID                           new JWT signing key, published now, signing in 1 min
  latchkey keys list --project ID
  latchkey keys retire --project ID --kid K                   remove a key from the JWKS
  latchkey member impersonate --project ID --org ORG --member M --impersonator EMAIL
                   [--impersonator-id ID] [--redirect URL] [--reason TEXT]   one-time login URL as the member
  latchkey audit --project ID [--type T] [--since 24h|TIME] [--until 24h|TIME] [--limit N] [--before EVENT_ID]
                   security events, newest first; a full page names the command for the next on stderr
  latchkey rekey (--new-key-file PATH | $LATCHKEY_NEW_ENCRYPTION_KEY)   rotate LATCHKEY_ENCRYPTION_KEY
                   stop every server first and back up the database; reseals every secret under the
                   new key in one transaction, then start the servers with the new key

Every command and subcommand takes --help. Quote a value that contains spaces (--name "My Shop").
Exit status: 0 done, 1 failed, 2 wrong usage.

Configuration comes from LATCHKEY_DATABASE_URL, LATCHKEY_BASE_URL, LATCHKEY_SMTP_URL,
LATCHKEY_EMAIL_FROM, LATCHKEY_SMS_URL, LATCHKEY_SMS_ACCOUNT_SID, LATCHKEY_SMS_AUTH_TOKEN,
LATCHKEY_SMS_FROM, LATCHKEY_ENCRYPTION_KEY and LATCHKEY_ADDR (flags override the address).
LATCHKEY_ENCRYPTION_KEY (openssl rand -base64 32) is required by every command outside dev
mode; "latchkey dev" writes one to encryption.key beside the SQLite file.
`

// Env is what a command sees of its process, injectable for tests.
type Env struct {
	Args   []string
	Stdin  io.Reader // nil reads as empty
	Stdout io.Writer
	Stderr io.Writer
	Lookup func(string) (string, bool)
	// Environ lists the environment as KEY=value (os.Environ), to find
	// misspelled LATCHKEY_* variables; nil skips that check.
	Environ func() []string
}

// Run executes the command in env.Args (without the program name) and
// returns the process exit code.
func Run(ctx context.Context, env Env) int {
	if len(env.Args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return 2
	}
	var err error
	switch env.Args[0] {
	case "serve":
		err = serve(ctx, env, false)
	case "dev":
		err = serve(ctx, env, true)
	case "migrate":
		if err = parseFlags(newFlags("migrate"), env.Args[1:]); err == nil {
			err = migrate(ctx, env)
		}
	case "project":
		err = projectCmd(ctx, env)
	case "keys":
		err = keysCmd(ctx, env)
	case "member":
		err = memberCmd(ctx, env)
	case "audit":
		err = auditCmd(ctx, env)
	case "rekey":
		err = rekeyCmd(ctx, env)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(env.Stdout, usage)
		return 0
	default:
		fmt.Fprintf(env.Stderr, "latchkey: unknown command %q\n\n%s", env.Args[0], usage)
		return 2
	}
	return report(env, nameKeySource(env, err))
}

// report turns a command's result into its exit status: 0 (help included,
// printed on stdout), 2 for a usage error, 1 for anything else.
func report(env Env, err error) int {
	var help *helpRequested
	var bad *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &help):
		fmt.Fprint(env.Stdout, help.text)
		return 0
	case errors.As(err, &bad):
		cmd := bad.cmd
		if cmd == "" {
			cmd = env.Args[0]
		}
		fmt.Fprintf(env.Stderr, "latchkey %s: %s\n(latchkey %s --help shows its usage)\n", cmd, bad.msg, cmd)
		return 2
	default:
		fmt.Fprintf(env.Stderr, "latchkey %s: %s\n", env.Args[0], errorText(env, err))
		return 1
	}
}

func loadConfig(env Env) (config.Config, error) {
	return config.FromEnv(config.Defaults(), env.Lookup)
}

// OSEnv returns the process environment.
func OSEnv() Env {
	return Env{Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Lookup: os.LookupEnv,
		Environ: os.Environ}
}

// secretKeys are attribute names whose values never reach a log.
var secretKeys = []string{"token", "secret", "password", "code", "authorization", "cookie", "jwt"}

// newLogger logs JSON in production and text in dev, redacting any
// attribute whose name suggests a secret.
func newLogger(w io.Writer, dev bool, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		k := strings.ToLower(a.Key)
		for _, s := range secretKeys {
			if strings.Contains(k, s) {
				return slog.String(a.Key, "[redacted]")
			}
		}
		return a
	}}
	if dev {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
