package organization

import (
	"errors"
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// Handlers serves the organization and member routes of both faces.
type Handlers struct {
	Store    *Store
	Sessions Sessions
	Limiter  *ratelimit.Limiter
}

// OrgResponse carries one organization.
type OrgResponse struct {
	httpapi.Common
	Organization *Organization `json:"organization"`
}

// MemberResponse is the API family's MemberResponseCommon.
type MemberResponse struct {
	httpapi.Common
	MemberID     string        `json:"member_id"`
	Member       *Member       `json:"member"`
	Organization *Organization `json:"organization"`
}

// DeleteResponse answers an organization delete.
type DeleteResponse struct {
	httpapi.Common
	OrganizationID string `json:"organization_id"`
}

// NotFound maps store.ErrNotFound to the catalogue type t.
func NotFound(err error, t apierr.Type) error {
	if errors.Is(err, store.ErrNotFound) {
		return apierr.Wrap(t, err)
	}
	return err
}

// backendSettings is the body of the backend face's organization create
// and update: the settings plus claimed_email_domains, which only these
// two routes decode (Settings leaves it out), so neither the SDK face nor
// discovery's organization create can set it (claims.go).
type backendSettings struct {
	Settings
	ClaimedEmailDomains *[]string `json:"claimed_email_domains"`
}

func decodeBackendSettings(r *http.Request) (Settings, error) {
	var body backendSettings
	if err := httpapi.Decode(r, &body); err != nil {
		return Settings{}, err
	}
	set := body.Settings
	set.ClaimedEmailDomains = body.ClaimedEmailDomains
	return set, nil
}

// Create handles POST /v1/b2b/organizations.
func (h Handlers) Create(r *http.Request) (any, error) {
	set, err := decodeBackendSettings(r)
	if err != nil {
		return nil, err
	}
	p := project.CallerFrom(r.Context()).Project
	o, err := h.Store.Create(r.Context(), p.ID, p.Env, set)
	if err != nil {
		return nil, err
	}
	return &OrgResponse{Organization: o}, nil
}

// Get handles GET /v1/b2b/organizations/{organization_id}.
func (h Handlers) Get(r *http.Request) (any, error) {
	p := project.CallerFrom(r.Context()).Project
	o, err := h.Store.Get(r.Context(), p.ID, r.PathValue("organization_id"))
	if err != nil {
		return nil, NotFound(err, apierr.OrganizationNotFound)
	}
	return &OrgResponse{Organization: o}, nil
}

// Update handles PUT /v1/b2b/organizations/{organization_id}.
func (h Handlers) Update(r *http.Request) (any, error) {
	set, err := decodeBackendSettings(r)
	if err != nil {
		return nil, err
	}
	return h.updateSettings(r, set)
}

// DeleteExternalID handles DELETE /v1/b2b/organizations/{organization_id}/external_id.
func (h Handlers) DeleteExternalID(r *http.Request) (any, error) {
	none := ""
	return h.updateSettings(r, Settings{ExternalID: &none})
}

// updateSettings applies set to the backend caller's organization, once
// the caller may change what set names.
func (h Handlers) updateSettings(r *http.Request, set Settings) (any, error) {
	c, err := h.backendCaller(r)
	if err != nil {
		return nil, err
	}
	if err := c.authorizeSettings(r.Context(), set); err != nil {
		return nil, err
	}
	o, err := h.Store.Update(r.Context(), c.Project.ID, c.Organization.OrganizationID, set)
	if err != nil {
		return nil, NotFound(err, apierr.OrganizationNotFound)
	}
	return &OrgResponse{Organization: o}, nil
}

// Delete handles DELETE /v1/b2b/organizations/{organization_id}.
func (h Handlers) Delete(r *http.Request) (any, error) {
	c, err := h.backendCaller(r)
	if err != nil {
		return nil, err
	}
	if err := c.Authorize(r.Context(), ResourceOrganization, ActionOrgDelete); err != nil {
		return nil, err
	}
	id := c.Organization.OrganizationID
	if err := h.Store.Delete(r.Context(), c.Project.ID, id, ActorOf(c, false)); err != nil {
		return nil, NotFound(err, apierr.OrganizationNotFound)
	}
	return &DeleteResponse{OrganizationID: id}, nil
}

type createMemberRequest struct {
	EmailAddress          string         `json:"email_address"`
	Name                  string         `json:"name"`
	TrustedMetadata       map[string]any `json:"trusted_metadata"`
	UntrustedMetadata     map[string]any `json:"untrusted_metadata"`
	CreateMemberAsPending bool           `json:"create_member_as_pending"`
	IsBreakglass          bool           `json:"is_breakglass"`
	IsAdmin               *bool          `json:"is_admin"`
	Roles                 *[]string      `json:"roles"`
	MemberFields
}

// refuseForMember refuses the fields only the project secret may set
// (the SDK face drops trusted_metadata first, as it always has). MFA
// enrollment and phone need no action beyond create: a new member has no
// factor to weaken, and a phone number set here is unverified, no factor
// until the member proves it.
func (req createMemberRequest) refuseForMember() error {
	if req.TrustedMetadata != nil {
		return errMemberTrusted("trusted_metadata")
	}
	if req.ExternalID != nil {
		return errMemberTrusted("external_id")
	}
	return nil
}

// actions lists the stytch.member actions a member create needs, on both
// faces (one list, so the faces cannot drift): create, plus
// update.settings.roles when it names roles and
// update.settings.is-breakglass for a break-glass member, since creating
// one grants no less than marking an existing member, which needs it.
func (req createMemberRequest) actions() []string {
	out := []string{ActionCreate}
	if req.Roles != nil || req.IsAdmin != nil {
		out = append(out, ActionRoles)
	}
	if req.IsBreakglass {
		out = append(out, ActionBreakglass)
	}
	return out
}

// CreateMember handles POST /v1/b2b/organizations/{organization_id}/members.
func (h Handlers) CreateMember(r *http.Request) (any, error) {
	var req createMemberRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	c, err := h.backendCaller(r)
	if err != nil {
		return nil, err
	}
	for _, a := range req.actions() {
		if err := c.Authorize(r.Context(), ResourceMember, a); err != nil {
			return nil, err
		}
	}
	if c.Member != nil {
		if err := req.refuseForMember(); err != nil {
			return nil, err
		}
	}
	return h.createMember(r, c.Project, c.Organization, req)
}

func (h Handlers) createMember(r *http.Request, p *project.Project, o *Organization, req createMemberRequest) (any, error) {
	email, err := emailaddr.Normalize(req.EmailAddress)
	if err != nil {
		return nil, err
	}
	roles, err := MemberUpdate{Roles: req.Roles, IsAdmin: req.IsAdmin}.explicitRoles(nil)
	if err != nil {
		return nil, err
	}
	status := StatusActive
	if req.CreateMemberAsPending {
		status = StatusPending
	}
	nm := NewMember{Email: email, Name: req.Name, Status: status, TrustedMetadata: req.TrustedMetadata,
		UntrustedMetadata: req.UntrustedMetadata, IsBreakglass: req.IsBreakglass, Roles: roles}
	// The MFA fields and external id go through the update's rules after
	// the insert, in its transaction: a refusal undoes the insert.
	var m *Member
	err = h.Store.db.Tx(r.Context(), func(q store.Querier) (err error) {
		if m, err = h.Store.CreateMember(r.Context(), q, o, p.Env, nm); err != nil || !req.MemberFields.set() {
			return err
		}
		m, err = h.Store.UpdateMember(r.Context(), q, o, p.Env, m.MemberID, MemberUpdate{MemberFields: req.MemberFields})
		return err
	})
	if err != nil {
		return nil, err
	}
	return &MemberResponse{MemberID: m.MemberID, Member: m, Organization: o}, nil
}

// GetMember handles GET /v1/b2b/organizations/{organization_id}/member
// with member_id or email_address in the query.
func (h Handlers) GetMember(r *http.Request) (any, error) {
	ctx := r.Context()
	p := project.CallerFrom(ctx).Project
	o, err := h.Store.Get(ctx, p.ID, r.PathValue("organization_id"))
	if err != nil {
		return nil, NotFound(err, apierr.OrganizationNotFound)
	}
	q := r.URL.Query()
	var m *Member
	switch {
	case q.Get("member_id") != "":
		m, err = h.Store.Member(ctx, h.Store.db.Read(), p.ID, q.Get("member_id"))
		if err == nil && m.OrganizationID != o.OrganizationID {
			err = store.ErrNotFound
		}
	case q.Get("email_address") != "":
		email, verr := emailaddr.Normalize(q.Get("email_address"))
		if verr != nil {
			return nil, verr
		}
		m, err = h.Store.MemberByEmail(ctx, h.Store.db.Read(), o.OrganizationID, email)
	default:
		return nil, apierr.Invalid("member_id", "member_id or email_address is required.")
	}
	if err != nil {
		return nil, NotFound(err, apierr.MemberNotFound)
	}
	return &MemberResponse{MemberID: m.MemberID, Member: m, Organization: o}, nil
}

// BySlugMatch is the subset of an organization the SDK's getBySlug exposes
// to anyone holding the public token.
type BySlugMatch struct {
	OrganizationID             string                `json:"organization_id"`
	OrganizationName           string                `json:"organization_name"`
	OrganizationSlug           string                `json:"organization_slug"`
	OrganizationLogoURL        string                `json:"organization_logo_url"`
	SSOActiveConnections       []SSOActiveConnection `json:"sso_active_connections"`
	SSODefaultConnectionID     *string               `json:"sso_default_connection_id"`
	EmailJITProvisioning       string                `json:"email_jit_provisioning"`
	EmailAllowedDomains        []string              `json:"email_allowed_domains"`
	OAuthTenantJITProvisioning string                `json:"oauth_tenant_jit_provisioning"`
	AllowedOAuthTenants        map[string][]string   `json:"allowed_oauth_tenants"`
	AuthMethods                string                `json:"auth_methods"`
	AllowedAuthMethods         []string              `json:"allowed_auth_methods"`
	MFAPolicy                  string                `json:"mfa_policy"`
}

type bySlugResponse struct {
	httpapi.Common
	Organization *BySlugMatch `json:"organization"`
}

// SearchBySlug handles SDK POST /b2b/organizations/search: the
// organization or null (not an error, as the SDK expects).
func (h Handlers) SearchBySlug(r *http.Request) (any, error) {
	var req struct {
		Slug string `json:"organization_slug"`
	}
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	if err := httpapi.Required("organization_slug", req.Slug); err != nil {
		return nil, err
	}
	p := project.CallerFrom(r.Context()).Project
	o, err := h.Store.BySlug(r.Context(), p.ID, req.Slug)
	if errors.Is(err, store.ErrNotFound) {
		return &bySlugResponse{}, nil
	}
	if err != nil {
		return nil, err
	}
	return &bySlugResponse{Organization: &BySlugMatch{
		OrganizationID: o.OrganizationID, OrganizationName: o.OrganizationName, OrganizationSlug: o.OrganizationSlug,
		OrganizationLogoURL: o.OrganizationLogoURL, SSOActiveConnections: o.SSOActiveConnections,
		SSODefaultConnectionID: o.SSODefaultConnectionID, EmailJITProvisioning: o.EmailJITProvisioning,
		EmailAllowedDomains: o.EmailAllowedDomains, OAuthTenantJITProvisioning: o.OAuthTenantJITProvisioning,
		AllowedOAuthTenants: o.AllowedOAuthTenants, AuthMethods: o.AuthMethods, AllowedAuthMethods: o.AllowedAuthMethods,
		MFAPolicy: o.MFAPolicy,
	}}, nil
}
