package organization

import (
	"context"
	"net/http"
	"slices"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
)

// The headers of the Node client's method_options.authorization: a
// customer's server acting for a logged-in member sends the member's
// session with the project secret, and the call gets that member's
// permissions instead of the secret's full rights.
const (
	MemberSessionHeader    = "X-Stytch-Member-Session"
	MemberSessionJWTHeader = "X-Stytch-Member-SessionJWT"
)

// The headers' keys as net/http stores them. Header.Get canonicalizes its
// argument on every call, and "SessionJWT" is not canonical ("Sessionjwt"),
// so each Get built a new string: every backend call looks these up, the
// session check included.
var (
	memberSessionKey    = http.CanonicalHeaderKey(MemberSessionHeader)
	memberSessionJWTKey = http.CanonicalHeaderKey(MemberSessionJWTHeader)
)

// headerValue is r's first value under the canonical key.
func headerValue(r *http.Request, key string) string {
	if v := r.Header[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// MemberSessionOf returns the member session a backend call carries, if any.
func MemberSessionOf(r *http.Request) (SessionCredential, bool) {
	cred := SessionCredential{Token: headerValue(r, memberSessionKey), JWT: headerValue(r, memberSessionJWTKey)}
	if cred.Token != "" {
		cred.JWT = ""
	}
	return cred, cred.Token != "" || cred.JWT != ""
}

// RefuseMemberSession wraps a backend route that does not act for a
// member (the root wraps every backend route not marked
// httpapi.Route.ForMember): a call carrying a member session header is
// refused before the route runs. The caller asked for the member's rights;
// ignoring the header would serve it with the project secret's, which are
// every right in every organization. The vendor documents the headers only
// on the routes that accept them (method_options.authorization) and no
// answer for the others, so the refusal is unauthorized_action, naming the
// header.
func RefuseMemberSession(h httpapi.HandlerFunc) httpapi.HandlerFunc {
	return func(r *http.Request) (any, error) {
		if err := memberSessionRefusal(r); err != nil {
			return nil, err
		}
		return h(r)
	}
}

// memberSessionRefusal is the refusal of the member session header r
// carries on a route that cannot act for it, or nil when it carries none.
func memberSessionRefusal(r *http.Request) error {
	header := MemberSessionHeader
	if headerValue(r, memberSessionKey) == "" {
		if header = MemberSessionJWTHeader; headerValue(r, memberSessionJWTKey) == "" {
			return nil
		}
	}
	return apierr.New(apierr.UnauthorizedAction).WithMessage(header + " is not accepted on this route: it does not act " +
		"for a member session. Send the call without the member session headers to act with the project secret.")
}

// BackendCaller resolves who acts on a backend call against organization
// orgID (organization_not_found when the project has none by that id).
// Without a member session header it is the project secret, which every
// Authorize permits. With one, it is that member, authorized by their roles
// exactly as on the SDK face; a member of another organization is
// tenancy_mismatch, and a session that does not authenticate fails as
// sessions/authenticate would.
func BackendCaller(r *http.Request, st *Store, sessions Sessions, orgID string) (*SessionCaller, error) {
	ctx := r.Context()
	p := project.CallerFrom(ctx).Project
	o, err := st.Get(ctx, p.ID, orgID)
	if err != nil {
		return nil, NotFound(err, apierr.OrganizationNotFound)
	}
	cred, ok := MemberSessionOf(r)
	if !ok {
		return &SessionCaller{Project: p, Organization: o, rbac: st.rbac, now: st.clock.Now()}, nil
	}
	if sessions == nil {
		// A route wired without sessions cannot honour the header; refusing
		// is safer than silently granting the secret's rights.
		return nil, memberSessionRefusal(r)
	}
	s, err := sessions.SessionMember(ctx, p, httpapi.ClientIP(r), cred)
	if err != nil {
		return nil, err
	}
	if s.Member.OrganizationID != o.OrganizationID {
		return nil, apierr.New(apierr.TenancyMismatch)
	}
	return st.sessionCaller(ctx, p, o, s), nil
}

// BackendCallerIn is BackendCaller for calls that name their organizations
// in the body (searches): with a member session every named organization
// must be the member's own, and at least one must be named.
func BackendCallerIn(r *http.Request, st *Store, sessions Sessions, orgIDs []string) (*SessionCaller, error) {
	if _, ok := MemberSessionOf(r); !ok {
		return &SessionCaller{Project: project.CallerFrom(r.Context()).Project, rbac: st.rbac, now: st.clock.Now()}, nil
	}
	if len(orgIDs) == 0 {
		return nil, apierr.Invalid("organization_ids", "organization_ids must name the member's organization when acting for a member session.")
	}
	c, err := BackendCaller(r, st, sessions, orgIDs[0])
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(orgIDs, func(id string) bool { return id != c.Organization.OrganizationID }) {
		return nil, apierr.New(apierr.TenancyMismatch)
	}
	return c, nil
}

// authorizeSettings authorizes an organization update: each changed field
// group needs its stytch.organization action. Trusted metadata and the
// external id are the customer backend's own bookkeeping, and claimed
// domains its word on who owns a domain (claims.go): no member permission
// covers them, so a call acting for a member cannot change them.
func (c *SessionCaller) authorizeSettings(ctx context.Context, set Settings) error {
	if c.Member == nil {
		return nil
	}
	if set.TrustedMetadata != nil {
		return errMemberTrusted("trusted_metadata")
	}
	if set.ExternalID != nil {
		return errMemberTrusted("external_id")
	}
	if set.ClaimedEmailDomains != nil {
		return errMemberTrusted("claimed_email_domains")
	}
	for _, a := range set.Actions() {
		if err := c.Authorize(ctx, ResourceOrganization, a); err != nil {
			return err
		}
	}
	return nil
}

// errMemberTrusted refuses a field only the project secret may write.
func errMemberTrusted(field string) error {
	return apierr.New(apierr.UnauthorizedAction).WithMessage(
		field + " cannot be changed when acting for a member session; send the call without the member session header.")
}

// CallerOf resolves the caller of a route served on both faces by one
// handler: on the SDK face the session's member (CallerFromSession), on
// the backend face the project secret or the member session header for
// the path's {organization_id} (BackendCaller).
func CallerOf(r *http.Request, sdk bool, st *Store, sessions Sessions) (*SessionCaller, error) {
	if sdk {
		return CallerFromSession(r, st, sessions)
	}
	return BackendCaller(r, st, sessions, r.PathValue("organization_id"))
}
