package cli

import (
	"context"
	"os"
	"strconv"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/project"
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
	db, box, err := openDB(ctx, env)
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := requireProject(ctx, project.NewStore(db, clock.Real{}, box), *id)
	if err != nil {
		return err
	}
	svc := trustedauth.New(trustedauth.Deps{DB: db, Clock: clock.Real{}})
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
		prof, err := svc.CreateProfile(ctx, n)
		if err != nil {
			return err
		}
		return enc.Encode(prof)
	case "list":
		list, err := svc.Profiles(ctx, p.ID)
		if err != nil {
			return err
		}
		return enc.Encode(map[string]any{"trusted_auth_token_profiles": list})
	case "update":
		on, err := strconv.ParseBool(active)
		if err != nil {
			return usageErrorf(fs.Name(), "--active must be true or false")
		}
		prof, err := svc.SetActive(ctx, p.ID, profileID, on)
		if err != nil {
			return err
		}
		return enc.Encode(prof)
	default: // delete
		if err := svc.DeleteProfile(ctx, p.ID, profileID); err != nil {
			return err
		}
		return enc.Encode(map[string]string{"deleted": profileID})
	}
}
