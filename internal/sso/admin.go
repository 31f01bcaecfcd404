package sso

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/displaytext"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// Handlers serves the SSO routes of one API face. On the SDK face the
// organization is the logged-in member's and changing its connections is
// authorized by authorize; on the backend face the organization is named in
// the path and the project secret suffices, unless the call carries a
// member session header, whose roles are then authorized the same way.
type Handlers struct {
	s   *Service
	sdk bool
}

// Actions on connections, as the RBAC resource stytch.sso names them.
const (
	actionGet    = "get"
	actionCreate = "create"
	actionUpdate = "update"
	actionDelete = "delete"
)

// authorize is the one place that decides whether an SDK caller may act on
// their organization's SSO connections: the RBAC policy's stytch.sso
// resource, whose built-in stytch_admin role holds every action. Reading is
// authorized like every change, so a member without stytch.sso:get cannot
// list connection details.
func authorize(ctx context.Context, c *organization.SessionCaller, action string) error {
	return c.Authorize(ctx, "stytch.sso", action)
}

// caller resolves who acts on a request and authorizes action for them.
func (h Handlers) caller(r *http.Request, action string) (*organization.SessionCaller, error) {
	c, err := organization.CallerOf(r, h.sdk, h.s.d.Orgs, h.s.d.Members)
	if err != nil {
		return nil, err
	}
	if err := authorize(r.Context(), c, action); err != nil {
		return nil, err
	}
	return c, nil
}

// scope resolves the project and organization a request acts on.
func (h Handlers) scope(r *http.Request, action string) (*project.Project, string, error) {
	c, err := h.caller(r, action)
	if err != nil {
		return nil, "", err
	}
	return c.Project, c.Organization.OrganizationID, nil
}

// List handles GET b2b/sso.
func (h Handlers) List(r *http.Request) (any, error) {
	p, orgID, err := h.scope(r, actionGet)
	if err != nil {
		return nil, err
	}
	conns, err := h.s.list(r.Context(), h.s.d.DB.Read(), p.ID, orgID)
	if err != nil {
		return nil, err
	}
	out := &ConnectionsResponse{SAMLConnections: []SAMLConnection{}, OIDCConnections: []OIDCConnection{},
		ExternalConnections: []ExternalConnection{}}
	base := h.s.d.BaseURL()
	for _, c := range conns {
		switch c.Kind {
		case KindSAML:
			out.SAMLConnections = append(out.SAMLConnections, *samlWire(c, base))
		case KindOIDC:
			out.OIDCConnections = append(out.OIDCConnections, *oidcWire(c, base))
		case KindExternal:
			out.ExternalConnections = append(out.ExternalConnections, *externalWire(c))
		}
	}
	if h.sdk {
		return sdkConnections(out), nil
	}
	return out, nil
}

// Delete handles DELETE of a connection.
func (h Handlers) Delete(r *http.Request) (any, error) {
	p, orgID, err := h.scope(r, actionDelete)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("connection_id")
	err = h.s.d.DB.Tx(r.Context(), func(q store.Querier) error {
		c, err := h.s.loadLocked(r.Context(), q, p.ID, orgID, id)
		if err != nil {
			return err
		}
		return h.s.remove(r.Context(), q, c)
	})
	if err != nil {
		return nil, err
	}
	return &DeleteResponse{ConnectionID: id}, nil
}

type createRequest struct {
	DisplayName      string `json:"display_name"`
	IdentityProvider string `json:"identity_provider"`
}

// IdentityProviders are the identity_provider values the API family names;
// "generic" is the default.
var IdentityProviders = []string{"classlink", "cyberark", "duo", "generic", "google-workspace", "jumpcloud", "keycloak",
	"miniorange", "microsoft-entra", "okta", "onelogin", "pingfederate", "rippling", "salesforce", "shibboleth"}

func checkIdentityProvider(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "generic", nil
	}
	for _, known := range IdentityProviders {
		if v == known {
			return v, nil
		}
	}
	return "", apierr.Invalid("identity_provider", "identity_provider must be one of "+strings.Join(IdentityProviders, ", ")+".")
}

// create stores a new connection of kind built by fill.
func (h Handlers) create(r *http.Request, kind string, fill func(c *conn) error) (*conn, error) {
	var req createRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	p, orgID, err := h.scope(r, actionCreate)
	if err != nil {
		return nil, err
	}
	idp, err := checkIdentityProvider(req.IdentityProvider)
	if err != nil {
		return nil, err
	}
	name, err := checkDisplayName(req.DisplayName)
	if err != nil {
		return nil, err
	}
	c := &conn{ID: newConnectionID(kind, p.Env), ProjectID: p.ID, OrganizationID: orgID, Kind: kind,
		DisplayName: name, IdentityProvider: idp}
	if c.DisplayName == "" {
		c.DisplayName = defaultDisplayName(kind, idp)
	}
	if err := fill(c); err != nil {
		return nil, err
	}
	if err := h.s.d.DB.Tx(r.Context(), func(q store.Querier) error { return h.s.insert(r.Context(), q, c) }); err != nil {
		return nil, err
	}
	return c, nil
}

// MaxDisplayName bounds a connection's display_name, in characters: the
// login screen shows it on a button, where a longer one does not fit.
const MaxDisplayName = 256

// checkDisplayName trims a connection's display_name, which the login
// screen shows ("Continue with ..."), and refuses one over MaxDisplayName
// characters or holding control or bidirectional formatting characters
// (displaytext). A name with nothing visible is "", as a blank one: a
// create then uses the default, an update refuses it (updateDisplayName).
func checkDisplayName(v string) (string, error) {
	v, why := displaytext.Line("display_name", v, MaxDisplayName)
	if why != "" {
		return "", apierr.Invalid("display_name", why)
	}
	return v, nil
}

// updateDisplayName sets *dst to a given display_name, which must not be
// blank: an update has no default to fall back on.
func updateDisplayName(dst *string, v *string) error {
	if v == nil {
		return nil
	}
	name, err := checkDisplayName(*v)
	if err != nil {
		return err
	}
	if name == "" {
		return apierr.Invalid("display_name", "display_name must not be empty.")
	}
	*dst = name
	return nil
}

func defaultDisplayName(kind, idp string) string {
	name := strings.ToUpper(kind)
	if idp != "generic" {
		return idp + " " + name
	}
	return name
}

// CreateSAML handles POST b2b/sso/saml: a pending connection with a fresh
// service-provider signing key.
func (h Handlers) CreateSAML(r *http.Request) (any, error) {
	c, err := h.create(r, KindSAML, func(c *conn) error {
		key, err := h.s.newKey(newKeyID("saml-signing-key", c), c.ID, nil, h.s.d.Clock.Now())
		if err != nil {
			return err
		}
		c.SAML = &samlConfig{AttributeMapping: map[string]any{}, SigningKeys: []storedKey{key}}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return h.samlAnswer(c), nil
}

// samlAnswer is a SAML create or update answer for the face: the SDK's
// declared shape there, as for the list.
func (h Handlers) samlAnswer(c *conn) any {
	w := samlWire(c, h.s.d.BaseURL())
	if h.sdk {
		return &sdkSAMLResponse{Connection: sdkSAML(*w)}
	}
	return &SAMLResponse{Connection: w}
}

// CreateOIDC handles POST b2b/sso/oidc.
func (h Handlers) CreateOIDC(r *http.Request) (any, error) {
	c, err := h.create(r, KindOIDC, func(c *conn) error {
		c.OIDC = &oidcConfig{AttributeMapping: map[string]any{}}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &OIDCResponse{Connection: oidcWire(c, h.s.d.BaseURL())}, nil
}

// changeTarget is a connection an update has been authorized to change.
type changeTarget struct {
	projectID, orgID, connID, kind string
}

// change loads a connection of kind, lets edit change it, and saves it,
// all in one transaction, once the caller is authorized to update it.
func (h Handlers) change(r *http.Request, kind string, edit func(ctx context.Context, c *conn) error) (*conn, error) {
	p, orgID, err := h.scope(r, actionUpdate)
	if err != nil {
		return nil, err
	}
	return h.changeIn(r.Context(), changeTarget{p.ID, orgID, r.PathValue("connection_id"), kind}, edit)
}

// authorizeFetch is the update's authorization, run by updates that fetch
// a URL the caller names (issuer discovery, IdP metadata) before they
// fetch it: the fetch happens outside the transaction, and without this a
// caller holding only the public token could make the server request any
// URL. The connection must also exist in the caller's organization, so an
// administrator cannot borrow another organization's connection id to
// reach the fetch either.
func (h Handlers) authorizeFetch(r *http.Request, kind string) (changeTarget, error) {
	p, orgID, err := h.scope(r, actionUpdate)
	if err != nil {
		return changeTarget{}, err
	}
	t := changeTarget{p.ID, orgID, r.PathValue("connection_id"), kind}
	c, err := h.s.load(r.Context(), h.s.d.DB.Read(), t.projectID, t.orgID, t.connID)
	if err != nil {
		return changeTarget{}, err
	}
	if c.Kind != kind {
		return changeTarget{}, apierr.New(apierr.SSOConnectionNotFound)
	}
	return t, nil
}

// FetchPerOrganization limits the admin updates that make the server
// fetch a URL the caller names (SAML metadata by URL, OIDC issuer
// discovery), per organization: each is an outbound request on the
// caller's word, and an organization is anyone's to create. Ample for an
// administrator fixing a connection by trial and error.
var FetchPerOrganization = ratelimit.Rule{Name: "sso_fetch_org", Limit: 30, Window: 10 * time.Minute}

// allowFetch counts one fetching update of t's organization, or refuses
// it (too_many_requests).
func (h Handlers) allowFetch(ctx context.Context, t changeTarget) error {
	return h.s.d.Limiter.Allow(ctx, FetchPerOrganization, t.projectID+"/"+t.orgID)
}

// changeIn is change for a target already authorized.
func (h Handlers) changeIn(ctx context.Context, t changeTarget, edit func(ctx context.Context, c *conn) error) (*conn, error) {
	var out *conn
	err := h.s.d.DB.Tx(ctx, func(q store.Querier) error {
		var err error
		out, err = h.s.changeTx(ctx, q, t, edit)
		return err
	})
	return out, err
}

// changeTx loads the target locked (loadLocked), lets edit change it and
// saves it inside q. Every field is written back as read, so without the
// lock a concurrent change of another field would be undone.
func (s *Service) changeTx(ctx context.Context, q store.Querier, t changeTarget, edit func(ctx context.Context, c *conn) error) (*conn, error) {
	c, err := s.loadLocked(ctx, q, t.projectID, t.orgID, t.connID)
	if err != nil {
		return nil, err
	}
	if c.Kind != t.kind {
		return nil, apierr.New(apierr.SSOConnectionNotFound)
	}
	before := c.idpIdentity()
	if err := edit(ctx, c); err != nil {
		return nil, err
	}
	if err := s.save(ctx, q, c); err != nil {
		return nil, err
	}
	if before != "" && c.idpIdentity() != before {
		if err := s.forgetIdentities(ctx, q, c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// newKeyID mints a key or certificate id in the environment of the
// connection it belongs to.
func newKeyID(kind string, c *conn) string { return ids.New(kind, envOf(c)) }
