package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/oauth"
	"github.com/latchkey/latchkey/internal/oauth/providers"
)

// projectOAuth stores a provider's OAuth credentials for a project. The
// client secret is sealed with LATCHKEY_ENCRYPTION_KEY and never printed
// back; the answer names the callback URL to register at the provider.
func projectOAuth(ctx context.Context, env Env) error {
	fs := flag.NewFlagSet("project oauth", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	id := fs.String("project", "", "project id (required)")
	provider := fs.String("provider", "", "google, microsoft, hubspot, slack or github (required)")
	clientID := fs.String("client-id", "", "OAuth client id (required)")
	secret := fs.String("client-secret", "", "OAuth client secret (required; stored encrypted)")
	issuer := fs.String("issuer", "", "google, microsoft: OpenID Connect issuer (default: the real provider)")
	authorize := fs.String("authorize-url", "", "hubspot, slack, github: authorization endpoint")
	token := fs.String("token-url", "", "hubspot, slack, github: token endpoint")
	api := fs.String("api-url", "", "hubspot, slack, github: API base URL")
	if err := fs.Parse(env.Args[2:]); err != nil {
		return err
	}
	if *id == "" || *provider == "" || *clientID == "" || *secret == "" {
		return fmt.Errorf("--project, --provider, --client-id and --client-secret are required")
	}
	if !providers.Known(*provider) {
		return fmt.Errorf("--provider must be one of google, microsoft, hubspot, slack, github")
	}
	a, err := openApp(ctx, env)
	if err != nil {
		return err
	}
	defer a.Close()
	err = a.OAuth.SaveConfig(ctx, oauth.ProviderConfig{ProjectID: *id, Provider: *provider, Config: providers.Config{
		ClientID: *clientID, ClientSecret: *secret, Issuer: *issuer, AuthorizeURL: *authorize, TokenURL: *token, APIURL: *api}})
	if err != nil {
		return err
	}
	return json.NewEncoder(env.Stdout).Encode(map[string]string{"project_id": *id, "provider": *provider,
		"client_id": *clientID, "callback_url": a.OAuth.CallbackURL()})
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
	return app.New(ctx, cfg, app.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}
