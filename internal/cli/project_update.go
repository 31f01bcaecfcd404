package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/idp"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// sdkMaxUsage describes --sdk-max-session-duration (project create and update).
func sdkMaxUsage() string {
	return fmt.Sprintf("longest session_duration_minutes the SDK face (widget, browser SDK) may ask for, %d-%d (default %d)",
		project.MinSessionDurationMinutes, project.MaxSessionDurationMinutes, project.DefaultSDKMaxSessionDurationMinutes)
}

// projectUpdate changes project settings. Only flags that are given are
// applied, so `--products emailOtp` leaves everything else alone.
func projectUpdate(ctx context.Context, env Env) error {
	fs := newFlags("project update")
	id := fs.String("project", "", "project id (required)")
	name := fs.String("name", "", "new name")
	products := fs.String("products", "", "comma-separated enabled products: "+strings.Join(project.AllProducts, ","))
	duration := fs.Int("session-duration", 0, "default session duration in minutes")
	sdkMax := fs.Int("sdk-max-session-duration", 0, sdkMaxUsage())
	pkce := fs.String("pkce-magic-links", "", "true or false: require PKCE for email magic links")
	createOrg := fs.String("create-organization", "", "true or false: members may create organizations in discovery")
	watermark := fs.String("disable-watermark", "", "true or false: hide the widget watermark")
	slug := fs.String("slug-pattern", "", "page URL pattern with {{slug}}, e.g. https://{{slug}}.app.example.com (\"-\" clears it)")
	pwPolicy := fs.String("password-policy", "", "password strength policy: zxcvbn or luds")
	ludsLength := fs.Int("luds-min-length", 0, "LUDS policy: minimum password length (8-64)")
	ludsComplexity := fs.Int("luds-complexity", 0, "LUDS policy: how many of lowercase, uppercase, digit, symbol (1-4)")
	pkceResets := fs.String("pkce-password-resets", "", "true or false: require PKCE for password resets")
	idpURL := fs.String("idp-authorization-url", "", "the page that mounts the widget's identity provider: the OpenID provider's authorization endpoint (\"-\" clears it)")
	pkceSSO := fs.String("pkce-sso", "", "true or false: require PKCE for SSO logins")
	pkceOAuth := fs.String("pkce-oauth", "", "true or false: require PKCE for OAuth logins and One Tap")
	if err := parseFlags(fs, env.Args[2:]); err != nil {
		return err
	}
	if err := required(fs.Name(), *id == "", "--project is"); err != nil {
		return err
	}
	var u project.Update
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["name"] {
		u.Name = name
	}
	if set["products"] {
		list := []string{}
		for _, p := range strings.Split(*products, ",") {
			if p = strings.TrimSpace(p); p != "" {
				list = append(list, p)
			}
		}
		u.Products = &list
	}
	if set["session-duration"] {
		u.SessionDurationMinutes = duration
	}
	if set["sdk-max-session-duration"] {
		u.SDKMaxSessionDurationMinutes = sdkMax
	}
	for _, b := range []struct {
		name string
		in   *string
		dst  **bool
	}{{"pkce-magic-links", pkce, &u.PKCERequiredForEmailMagicLinks}, {"create-organization", createOrg, &u.CreateOrganizationEnabled},
		{"disable-watermark", watermark, &u.DisableSDKWatermark}, {"pkce-password-resets", pkceResets, &u.PKCERequiredForPasswordResets},
		{"pkce-sso", pkceSSO, &u.PKCERequiredForSSO}, {"pkce-oauth", pkceOAuth, &u.PKCERequiredForOAuth}} {
		if !set[b.name] {
			continue
		}
		v, err := strconv.ParseBool(*b.in)
		if err != nil {
			return usageErrorf(fs.Name(), "--%s takes true or false", b.name)
		}
		*b.dst = &v
	}
	if set["slug-pattern"] {
		if *slug == "-" {
			*slug = ""
		}
		u.SlugPattern = slug
	}
	if set["password-policy"] {
		u.PasswordStrengthPolicy = pwPolicy
	}
	if set["luds-min-length"] {
		u.LUDSMinPasswordLength = ludsLength
	}
	if set["luds-complexity"] {
		u.LUDSMinPasswordComplexity = ludsComplexity
	}
	projects, log, closeDB, err := openAudited(ctx, env)
	if err != nil {
		return err
	}
	defer closeDB()
	if _, err := requireProject(ctx, projects, *id); err != nil {
		return err
	}
	// The IdP setting lives in its own table: it is written in the
	// project update's transaction, so a bad URL leaves everything as it
	// was rather than half the change applied.
	var also []project.Also
	if set["idp-authorization-url"] {
		if *idpURL == "-" {
			*idpURL = ""
		}
		also = append(also, func(q store.Querier, projectID string) error {
			return idp.SetAuthorizationURL(ctx, q, clock.Real{}, projectID, *idpURL)
		})
	}
	// The audit event names each setting given and its new value (none is
	// a secret), in the update's transaction.
	given := map[string]any{}
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "project" {
			given[f.Name] = f.Value.String()
		}
	})
	also = append(also, projectAlso(configChanged(ctx, log, *id, "update", map[string]any{"settings": given})))
	p, err := projects.Update(ctx, *id, u, also...)
	if err != nil {
		return err
	}
	authz, err := idp.AuthorizationURLOf(ctx, projects.DB(), p.ID)
	if err != nil {
		return err
	}
	return newEncoder(env.Stdout).Encode(map[string]any{"idp_authorization_url": authz, "project_id": p.ID, "name": p.Name, "products": p.Products,
		"session_duration_minutes": p.SessionDurationMinutes, "sdk_max_session_duration_minutes": p.SDKMaxSessionDurationMinutes,
		"pkce_required_for_email_magic_links": p.PKCERequiredForEmailMagicLinks,
		"create_organization_enabled":         p.CreateOrganizationEnabled, "disable_sdk_watermark": p.DisableSDKWatermark,
		"slug_pattern": p.SlugPattern, "password_strength_policy": p.PasswordStrengthPolicy,
		"luds_min_password_length": p.LUDSMinPasswordLength, "luds_min_password_complexity": p.LUDSMinPasswordComplexity,
		"pkce_required_for_password_resets": p.PKCERequiredForPasswordResets, "pkce_required_for_sso": p.PKCERequiredForSSO,
		"pkce_required_for_oauth": p.PKCERequiredForOAuth})
}
