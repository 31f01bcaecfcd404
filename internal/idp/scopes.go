package idp

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
)

// The built-in scopes (OIDC Core 5.4 and 11, plus full_access).
const (
	ScopeOpenID        = "openid"
	ScopeEmail         = "email"
	ScopeProfile       = "profile"
	ScopePhone         = "phone"
	ScopeOfflineAccess = "offline_access"
	ScopeFullAccess    = "full_access"
)

// BuiltinScopes lists the built-in scopes in display order.
var BuiltinScopes = []string{ScopeOpenID, ScopeEmail, ScopeProfile, ScopePhone, ScopeOfflineAccess, ScopeFullAccess}

// scopeDescriptions are the consent texts of the built-in scopes.
var scopeDescriptions = map[string]string{
	ScopeOpenID:        "Verify your identity",
	ScopeEmail:         "View your email address",
	ScopeProfile:       "View your profile information",
	ScopePhone:         "View your phone number",
	ScopeOfflineAccess: "Stay signed in and access your account when you are not using the app",
	ScopeFullAccess:    "Act on your behalf with full access to your account",
}

// Bounds on what a client may send as scopes and prompt. Every value of
// a scope parameter is looked up in the project's policy and every value
// of prompt is compared, while the request body may hold a megabyte: a
// parameter of a hundred thousand values cost seconds of a core (and, in
// a refresh, the database's writer) before anything refused it. A client
// asks for a few scopes; the prompt values defined (none, login, consent,
// select_account) fit in a few dozen bytes.
const (
	maxScopeValues = 100
	maxScopeBytes  = 4 << 10
	maxPromptBytes = 64
)

// scopeBoundsText is the refusal's description for a scope parameter
// over the bounds.
func scopeBoundsText() string {
	return fmt.Sprintf("A request may name at most %d scopes, in at most %d bytes.", maxScopeValues, maxScopeBytes)
}

// parseScopes splits a space-separated scope parameter (RFC 6749 3.3),
// dropping duplicates (by a set: searching the list for each value made
// the parse quadratic in the parameter's length) and keeping order.
func parseScopes(s string) []string {
	fields := strings.Fields(s)
	out := make([]string, 0, len(fields))
	seen := make(map[string]struct{}, len(fields))
	for _, f := range fields {
		if _, dup := seen[f]; !dup {
			seen[f] = struct{}{}
			out = append(out, f)
		}
	}
	return out
}

// splitScopes is parseScopes for a scope parameter a client sent: ok is
// false, and nothing is parsed, when s is over maxScopeBytes or names
// more than maxScopeValues scopes (duplicates counted).
func splitScopes(s string) (scopes []string, ok bool) {
	if len(s) > maxScopeBytes {
		return nil, false
	}
	n := 0
	for range strings.FieldsSeq(s) {
		if n++; n > maxScopeValues {
			return nil, false
		}
	}
	return parseScopes(s), true
}

// splitScopeList is splitScopes for a list of scopes (the authorize
// request's scopes), each of which may itself hold several.
func splitScopeList(list []string) ([]string, bool) {
	if len(list) > maxScopeValues {
		return nil, false
	}
	return splitScopes(strings.Join(list, " "))
}

// ScopeResult is one requested scope on the consent screen.
type ScopeResult struct {
	Scope       string `json:"scope"`
	Description string `json:"description"`
	IsGrantable bool   `json:"is_grantable"`
}

// evaluateScopes decides, per requested scope, whether the member may
// grant it to the app: built-in scopes always (full_access only to a
// first-party app allowed full access, App.MayHoldFullAccess); a custom
// scope of the project's RBAC policy only when the member's roles hold
// every permission it maps to (spec section 6: the consent screen lists
// the others, and they are not granted; the authorization goes on with
// the rest, prepared.granted). A scope neither built in nor in the policy
// is refused (invalid_scope).
func evaluateScopes(app *connectedapps.App, pol *rbac.Policy, who *authorizer, requested []string) ([]ScopeResult, error) {
	lacking := pol.ScopesLacking(who.roles, who.org.CustomRoles, requested)
	out := make([]ScopeResult, 0, len(requested))
	for _, s := range requested {
		if d, builtin := scopeDescriptions[s]; builtin {
			out = append(out, ScopeResult{Scope: s, Description: d, IsGrantable: s != ScopeFullAccess || app.MayHoldFullAccess()})
			continue
		}
		custom := pol.Scope(s)
		if custom == nil {
			return nil, apierr.New(apierr.InvalidScope).WithMessage("Unknown scope: " + s + ".")
		}
		out = append(out, ScopeResult{Scope: s, Description: custom.Description, IsGrantable: !slices.Contains(lacking, s)})
	}
	return out, nil
}

// heldScopes keeps the scopes of a grant the member and the app may still
// hold when tokens are issued again (refresh): a custom scope the
// project's policy no longer defines is dropped (the policy is the only
// thing that makes a custom name a scope: kept, it would be renewed with
// every rotation, and mean whatever a scope of that name means if it is
// defined again); custom scopes whose permissions the member's roles
// have lost are dropped, so a role removal narrows what an app can do at
// its next refresh; and full_access is dropped once the app may no longer
// hold it (its operator turned full_access_allowed off), so its next
// access token cannot become a session. The result never shares a
// backing array with scopes when it differs, so a stored row's slice is
// not changed.
func heldScopes(pol *rbac.Policy, roles []string, org *organization.Organization, app *connectedapps.App, scopes []string) []string {
	lacking := pol.ScopesLacking(roles, org.CustomRoles, scopes)
	for _, s := range scopes {
		if !isDefined(pol, s) {
			lacking = append(lacking, s)
		}
	}
	if !app.MayHoldFullAccess() && slices.Contains(scopes, ScopeFullAccess) {
		lacking = append(lacking, ScopeFullAccess)
	}
	if len(lacking) == 0 {
		return scopes
	}
	return slices.DeleteFunc(slices.Clone(scopes), func(s string) bool { return slices.Contains(lacking, s) })
}

// definedScopes keeps the scopes pol still makes scopes: the built-in ones
// and the custom ones it defines. It never changes scopes' backing array.
func definedScopes(pol *rbac.Policy, scopes []string) []string {
	return slices.DeleteFunc(slices.Clone(scopes), func(s string) bool { return !isDefined(pol, s) })
}

// isDefined reports whether pol makes s a scope: a built-in one, or a
// custom one it defines.
func isDefined(pol *rbac.Policy, s string) bool {
	_, builtin := scopeDescriptions[s]
	return builtin || pol.Scope(s) != nil
}

// supportedScopes are the built-in scopes and the policy's custom ones
// (discovery's scopes_supported).
func supportedScopes(pol *rbac.Policy) []string {
	out := slices.Clone(BuiltinScopes)
	for _, s := range pol.Scopes {
		if !slices.Contains(out, s.Scope) {
			out = append(out, s.Scope)
		}
	}
	return out
}

// memberClaims are the standard claims (OIDC Core 5.1) a member's granted
// scopes release, for ID tokens and userinfo.
func memberClaims(m *organization.Member, o *organization.Organization, scopes []string) map[string]any {
	c := map[string]any{}
	if slices.Contains(scopes, ScopeEmail) {
		c["email"], c["email_verified"] = m.EmailAddress, m.EmailAddressVerified
	}
	if slices.Contains(scopes, ScopeProfile) {
		c["name"] = m.Name
		c["updated_at"] = m.UpdatedAt.Unix()
	}
	if slices.Contains(scopes, ScopePhone) && m.MFAPhoneNumber != "" {
		c["phone_number"], c["phone_number_verified"] = m.MFAPhoneNumber, m.MFAPhoneNumberVerified
	}
	c["https://stytch.com/organization"] = orgClaim{OrganizationID: o.OrganizationID, Slug: o.OrganizationSlug}
	return c
}

// atHash is the ID token's at_hash (OIDC Core 3.1.3.6): the left half of
// SHA-256 of the access token for RS256.
func atHash(accessToken string) string {
	sum := sha256.Sum256([]byte(accessToken))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}
