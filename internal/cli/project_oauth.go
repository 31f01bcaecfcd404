package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/oauth"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/latchkey/latchkey/internal/outbound"
	"github.com/latchkey/latchkey/internal/store"
)

// projectOAuth stores a provider's OAuth credentials for a project. The
// client secret is sealed with LATCHKEY_ENCRYPTION_KEY and never printed
// back; the answer names the callback URL to register at the provider. The
// secret may come from stdin or LATCHKEY_OAUTH_CLIENT_SECRET instead of
// the command line, which shell history and ps would keep.
func projectOAuth(ctx context.Context, env Env) error {
	fs := newFlags("project oauth")
	id := fs.String("project", "", "project id (required)")
	provider := fs.String("provider", "", "google, microsoft, hubspot, slack or github (required)")
	clientID := fs.String("client-id", "", "OAuth client id (required)")
	secret := fs.String("client-secret", "", "OAuth client secret, stored encrypted; - reads it from stdin "+
		"(default: $"+clientSecretVar+")")
	secretStdin := fs.Bool("client-secret-stdin", false, "read the client secret from the first line of stdin")
	issuer := fs.String("issuer", "", "google, microsoft: OpenID Connect issuer (default: the real provider)")
	authorize := fs.String("authorize-url", "", "hubspot, slack, github: authorization endpoint")
	token := fs.String("token-url", "", "hubspot, slack, github: token endpoint")
	api := fs.String("api-url", "", "hubspot, slack, github: API base URL")
	if err := parseFlags(fs, env.Args[2:]); err != nil {
		return err
	}
	if err := required(fs.Name(), *id == "" || *provider == "" || *clientID == "", "--project, --provider and --client-id are"); err != nil {
		return err
	}
	if !providers.Known(*provider) {
		return usageErrorf(fs.Name(), "--provider must be one of google, microsoft, hubspot, slack, github")
	}
	clientSecret, err := oauthClientSecret(env, fs.Name(), *secret, *secretStdin)
	if err != nil {
		return err
	}
	// The endpoints are fetched and their answers trusted (tokens, the
	// member's identity): plain http only to this machine, as for a trusted
	// auth profile's JWKS URL.
	for flag, u := range map[string]string{"issuer": *issuer, "authorize-url": *authorize, "token-url": *token, "api-url": *api} {
		if err := checkEndpoint(flag, u); err != nil {
			return err
		}
	}
	a, err := openApp(ctx, env)
	if err != nil {
		return err
	}
	defer a.Close()
	if _, err := requireProject(ctx, a.Projects, *id); err != nil {
		return err
	}
	// The event says whether the provider was new or which settings
	// changed ("client_secret" when the secret did), never the secret.
	record := func(q store.Querier, c oauth.ConfigChange) error {
		d := map[string]any{"provider": *provider, "client_id": *clientID}
		if c.Created {
			d["created"] = true
		} else {
			d["changed"] = append([]string{}, c.Changed...)
		}
		return configChanged(ctx, a.Audit, *id, "oauth", d)(q)
	}
	err = a.OAuth.SaveConfig(ctx, oauth.ProviderConfig{ProjectID: *id, Provider: *provider, Config: providers.Config{
		ClientID: *clientID, ClientSecret: clientSecret, Issuer: *issuer, AuthorizeURL: *authorize, TokenURL: *token, APIURL: *api}},
		record)
	if err != nil {
		return err
	}
	if err := newEncoder(env.Stdout).Encode(map[string]string{"project_id": *id, "provider": *provider,
		"client_id": *clientID, "callback_url": a.OAuth.CallbackURL()}); err != nil {
		return err
	}
	warnDefaultBaseURL(env, "project oauth", "callback_url")
	return nil
}

// warnDefaultBaseURL tells, on stderr, that an answer's field derived from
// the base URL names the default http://localhost:8080 because
// LATCHKEY_BASE_URL is not set for this command: the server may well have
// it set, and a callback registered at a provider from this answer would
// send every login to a machine that is not the server.
func warnDefaultBaseURL(env Env, cmd, field string) {
	if baseURLSet(env) {
		return
	}
	fmt.Fprintf(env.Stderr, "latchkey %s: warning: LATCHKEY_BASE_URL is not set, so %s names the default %s; "+
		"run the command with the server's LATCHKEY_BASE_URL (its public URL) for the value to register\n",
		cmd, field, config.Defaults().BaseURL)
}

// clientSecretVar is where `project oauth` finds the client secret when no
// flag gives it.
const clientSecretVar = "LATCHKEY_OAUTH_CLIENT_SECRET"

// oauthClientSecret returns the client secret from --client-secret, stdin
// (--client-secret - or --client-secret-stdin) or the environment, in that
// order of choice; two sources at once, or none, is a usage error.
func oauthClientSecret(env Env, cmd, flagValue string, fromStdin bool) (string, error) {
	if flagValue != "" && flagValue != "-" && fromStdin {
		return "", usageErrorf(cmd, "give the client secret either with --client-secret or on stdin, not both")
	}
	if flagValue == "-" || fromStdin {
		s, err := readSecretLine(env.Stdin)
		if err != nil {
			return "", err
		}
		if s == "" {
			return "", usageErrorf(cmd, "no client secret on stdin (its first line is the secret)")
		}
		return s, nil
	}
	if flagValue != "" {
		return flagValue, nil
	}
	if s, ok := env.Lookup(clientSecretVar); ok && s != "" {
		return s, nil
	}
	return "", usageErrorf(cmd, "the client secret is required: --client-secret, --client-secret-stdin or $%s", clientSecretVar)
}

// checkEndpoint refuses an endpoint URL that is not https, or plain http
// to a loopback host (outbound.CheckURL, the rule SSO and trusted auth
// share), naming the flag.
func checkEndpoint(flag, raw string) error {
	if raw == "" {
		return nil
	}
	if err := outbound.CheckURL(raw); err != nil {
		return fmt.Errorf("--%s %s %v", flag, raw, err)
	}
	return nil
}

// openApp opens the whole application, every module wired, for a command
// that works through the modules' services (a policy change must see
// every module that assigns roles; an OAuth configuration is sealed by the
// module that reads it). The dev server's generated key file counts, as
// for every command that touches sealed secrets, and nothing is logged.
func openApp(ctx context.Context, env Env) (*app.App, error) {
	cfg, err := cliConfig(env)
	if err != nil {
		return nil, err
	}
	return newCLIApp(ctx, cfg)
}

// newCLIApp is app.New for a command: on a database that was migrated
// before (requireMigrated), logging nothing.
func newCLIApp(ctx context.Context, cfg config.Config) (*app.App, error) {
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	err = requireMigrated(ctx, db)
	db.Close()
	if err != nil {
		return nil, err
	}
	return app.New(ctx, cfg, app.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}
