package cli

import (
	"context"
	"os"
	"strconv"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/trustedauth"
)

// projectTokenProfile manages a project's trusted auth token profiles:
// the issuers whose signed JWTs b2b/sessions/attest exchanges for
// sessions. Profiles hold only public keys, so nothing here is secret.
func projectTokenProfile(ctx context.Context, env Env) error {
	const choices = "create, list, update, delete"
	verb, err := subcommand(env, 2, "project token-profile", choices)
	if err != nil {
		return err
	}
	fs := newFlags("project token-profile " + verb)
	id := fs.String("project", "", "project id (required)")
	var profileID string
	var n trustedauth.NewProfile
	var pemFiles multi
	var active string
	switch verb {
	case "create":
		fs.StringVar(&n.Name, "name", "", "display name (default: the issuer)")
		fs.StringVar(&n.Issuer, "issuer", "", "the tokens' iss claim (required)")
		fs.StringVar(&n.Audience, "audience", "", "the tokens' aud claim (required)")
		fs.StringVar(&n.JWKSURL, "jwks-url", "", "URL of the issuer's JWKS (https; http only for loopback)")
		fs.Var(&pemFiles, "pem-file", "file with a PEM public key or certificate (repeatable; instead of --jwks-url)")
		fs.StringVar(&n.AttributeMapping.Email, "email-claim", "email", "claim carrying the member's email")
		fs.StringVar(&n.AttributeMapping.TokenID, "token-id-claim", "jti", "claim whose value makes a token single-use")
		fs.StringVar(&n.AttributeMapping.OrganizationID, "organization-id-claim", "", "claim naming the member's organization")
		fs.StringVar(&n.AttributeMapping.Name, "name-claim", "", "claim carrying the member's name (used when provisioning)")
		fs.BoolVar(&n.CanJITProvision, "can-jit-provision", false, "provision unknown members (needs --organization-id-claim)")
		fs.BoolVar(&n.Inactive, "inactive", false, "create the profile switched off")
	case "update":
		// A string, not a bool flag: "--active false" would otherwise
		// leave "false" as an argument and switch nothing off.
		fs.StringVar(&active, "active", "", "true or false: whether the profile vouches for tokens (required)")
		fs.StringVar(&profileID, "profile", "", "profile id (required)")
	case "delete":
		fs.StringVar(&profileID, "profile", "", "profile id (required)")
	case "list":
	default:
		return unknownSubcommand("project token-profile", verb, choices)
	}
	if err := parseFlags(fs, env.Args[3:]); err != nil {
		return err
	}
	if err := required(fs.Name(), *id == "", "--project is"); err != nil {
		return err
	}
	if err := required(fs.Name(), (verb == "update" || verb == "delete") && profileID == "", "--profile is"); err != nil {
		return err
	}
	projects, log, closeDB, err := openAudited(ctx, env)
	if err != nil {
		return err
	}
	defer closeDB()
	p, err := requireProject(ctx, projects, *id)
	if err != nil {
		return err
	}
	svc := trustedauth.New(trustedauth.Deps{DB: projects.DB(), Clock: clock.Real{}})
	// Each change is filed in its own transaction (config_changed, method
	// "token-profile create" ...); a profile holds only public keys.
	record := func(details map[string]any) trustedauth.Also {
		return trustedauth.Also(configChanged(ctx, log, p.ID, "token-profile "+verb, details))
	}
	enc := newEncoder(env.Stdout)
	switch verb {
	case "create":
		for _, f := range pemFiles {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			n.PEMKeys = append(n.PEMKeys, string(b))
		}
		n.ProjectID, n.Env = p.ID, p.Env
		// The profile's id is made inside CreateProfile: the event names
		// the issuer and audience, which identify it as well.
		prof, err := svc.CreateProfile(ctx, n, record(map[string]any{"issuer": n.Issuer, "audience": n.Audience,
			"jwks_url": n.JWKSURL, "pem_keys": len(n.PEMKeys), "can_jit_provision": n.CanJITProvision, "active": !n.Inactive}))
		if err != nil {
			return err
		}
		return enc.Encode(prof)
	case "list":
		list, err := svc.Profiles(ctx, p.ID)
		if err != nil {
			return err
		}
		return encodeLines(env, list)
	case "update":
		on, err := strconv.ParseBool(active)
		if err != nil {
			return usageErrorf(fs.Name(), "--active must be true or false")
		}
		prof, err := svc.SetActive(ctx, p.ID, profileID, on, record(map[string]any{"profile_id": profileID, "active": on}))
		if err != nil {
			return err
		}
		return enc.Encode(prof)
	default: // delete
		if err := svc.DeleteProfile(ctx, p.ID, profileID, record(map[string]any{"profile_id": profileID})); err != nil {
			return err
		}
		return enc.Encode(map[string]any{"project_id": p.ID, "profile_id": profileID, "deleted": true})
	}
}
