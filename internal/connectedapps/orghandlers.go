package connectedapps

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// TokenRevoker ends the tokens a member's grant of an app produced; the
// provider implements it so a revoked app loses its refresh tokens in the
// same transaction as the consent.
type TokenRevoker interface {
	RevokeMemberApp(ctx context.Context, q store.Querier, memberID, clientID string) error
}

// OrgHandlers serve the organization, member and self views of connected
// apps (api-reference 3.11, 3.12 and 5.4) on both faces.
type OrgHandlers struct {
	Store    *Store
	Orgs     *organization.Store
	Sessions organization.Sessions
	Tokens   TokenRevoker
}

// subject is the organization (and member) a request is about.
type subject struct {
	projectID string
	org       *organization.Organization
	memberID  string
}

// orgWide is the action argument of the organization-wide views, which
// name no member.
const orgWide = ""

// backend resolves {organization_id} (and, unless action is orgWide,
// {member_id}) of a backend path, authorized like the SDK face when the
// call carries a member session header (organization.BackendCaller).
func (h OrgHandlers) backend(r *http.Request, action string) (*subject, error) {
	c, err := organization.BackendCaller(r, h.Orgs, h.Sessions, r.PathValue("organization_id"))
	if err != nil {
		return nil, err
	}
	return h.authorize(r, c, r.PathValue("member_id"), action)
}

// sdk resolves the session caller and authorizes it for action on
// memberID ("" means the caller), or for the organization-wide views.
func (h OrgHandlers) sdk(r *http.Request, memberID, action string) (*subject, error) {
	c, err := organization.CallerFromSession(r, h.Orgs, h.Sessions)
	if err != nil {
		return nil, err
	}
	if memberID == "" {
		memberID = c.Member.MemberID
	}
	return h.authorize(r, c, memberID, action)
}

// authorize applies the RBAC policy: a member's grants need the action
// (get.connected-apps or revoke.connected-app, as the SDK documents them)
// on stytch.member, or on stytch.self for one's own; the
// organization-wide views need stytch.member search. (The project secret
// may do all.)
func (h OrgHandlers) authorize(r *http.Request, c *organization.SessionCaller, memberID, action string) (*subject, error) {
	if action == orgWide {
		// Who granted which app is directory information: the member
		// search permission.
		if err := c.Authorize(r.Context(), organization.ResourceMember, organization.ActionSearch); err != nil {
			return nil, err
		}
		return &subject{projectID: c.Project.ID, org: c.Organization}, nil
	}
	if err := c.AuthorizeMember(r.Context(), memberID, action); err != nil {
		return nil, err
	}
	m, err := h.Orgs.OrgMember(r.Context(), h.Orgs.DB(), c.Organization, memberID)
	if err != nil {
		return nil, organization.NotFound(err, apierr.MemberNotFound)
	}
	return &subject{projectID: c.Project.ID, org: c.Organization, memberID: m.MemberID}, nil
}

func (h OrgHandlers) orgApps(r *http.Request, s *subject) (any, error) {
	apps, err := h.Store.OrgApps(r.Context(), s.projectID, s.org.OrganizationID)
	if err != nil {
		return nil, err
	}
	out := &OrgAppsResponse{ConnectedApps: make([]OrgApp, 0, len(apps))}
	for _, a := range apps {
		out.ConnectedApps = append(out.ConnectedApps, orgApp(a))
	}
	return out, nil
}

func (h OrgHandlers) orgApp(r *http.Request, s *subject) (any, error) {
	a, err := h.Store.Get(r.Context(), s.projectID, r.PathValue("connected_app_id"))
	if err != nil {
		return nil, NotFound(err)
	}
	grants, err := h.Store.OrgGrants(r.Context(), s.org.OrganizationID, a.ClientID)
	if err != nil {
		return nil, err
	}
	out := &OrgAppResponse{OrgApp: orgApp(a), ActiveMembers: make([]ActiveMember, 0, len(grants))}
	for _, g := range grants {
		out.ActiveMembers = append(out.ActiveMembers, ActiveMember{MemberID: g.MemberID, GrantedScopes: g.Scopes})
	}
	return out, nil
}

func (h OrgHandlers) memberApps(r *http.Request, s *subject) (any, error) {
	apps, err := h.Store.MemberApps(r.Context(), s.projectID, s.memberID)
	if err != nil {
		return nil, err
	}
	out := &MemberAppsResponse{ConnectedApps: make([]MemberAppWire, 0, len(apps))}
	for _, ma := range apps {
		out.ConnectedApps = append(out.ConnectedApps, MemberAppWire{OrgApp: orgApp(ma.App), ScopesGranted: strings.Join(ma.Scopes, " ")})
	}
	return out, nil
}

// revoke deletes the member's consent and ends every token the member
// holds for the app. It does so, and answers 200, with no consent on
// record too: tokens can outlive their consent (a family an earlier
// version minted from a code redeemed after a revoke), and answering
// not found first left nothing able to end them. The vendor's reference
// promises only that every active token is revoked, not a 404 for an app
// already revoked. An app the project does not have is not found.
//
// The member's row is locked for update first (the lock
// organization.HoldMemberToSpend takes), in the same transaction:
// a code exchange or refresh holds it (share) before it checks the
// consent and writes its tokens (idp holdConsent), so the two run one
// after the other, and on PostgreSQL READ COMMITTED this revoke's
// statements, started after such an issue committed, see and revoke its
// tokens, or the issue, started after this commits, finds no consent.
func (h OrgHandlers) revoke(r *http.Request, s *subject) (any, error) {
	ctx := r.Context()
	a, err := h.Store.Get(ctx, s.projectID, r.PathValue("connected_app_id"))
	if err != nil {
		return nil, NotFound(err)
	}
	err = h.Store.db.Tx(ctx, func(q store.Querier) error {
		if err := h.Orgs.HoldMemberToSpend(ctx, q, s.memberID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err := h.Store.RevokeGrant(ctx, q, s.memberID, a.ClientID); err != nil {
			return err
		}
		if h.Tokens != nil {
			return h.Tokens.RevokeMemberApp(ctx, q, s.memberID, a.ClientID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The answer names no one; the audit log files the revocation under
	// the member whose consent ended.
	httpapi.NoteSubject(ctx, httpapi.Subject{OrganizationID: s.org.OrganizationID, MemberID: s.memberID})
	return &RevokeResponse{}, nil
}

// BackendOrgApps handles GET /v1/b2b/organizations/{organization_id}/connected_apps.
func (h OrgHandlers) BackendOrgApps(r *http.Request) (any, error) {
	s, err := h.backend(r, orgWide)
	if err != nil {
		return nil, err
	}
	return h.orgApps(r, s)
}

// BackendOrgApp handles GET /v1/b2b/organizations/{organization_id}/connected_apps/{connected_app_id}.
func (h OrgHandlers) BackendOrgApp(r *http.Request) (any, error) {
	s, err := h.backend(r, orgWide)
	if err != nil {
		return nil, err
	}
	return h.orgApp(r, s)
}

// BackendMemberApps handles GET /v1/b2b/organizations/{organization_id}/members/{member_id}/connected_apps.
func (h OrgHandlers) BackendMemberApps(r *http.Request) (any, error) {
	s, err := h.backend(r, organization.ActionGetConnectedApps)
	if err != nil {
		return nil, err
	}
	return h.memberApps(r, s)
}

// BackendRevoke handles POST /v1/b2b/organizations/{organization_id}/members/{member_id}/connected_apps/{connected_app_id}/revoke.
func (h OrgHandlers) BackendRevoke(r *http.Request) (any, error) {
	s, err := h.backend(r, organization.ActionRevokeConnectedApp)
	if err != nil {
		return nil, err
	}
	return h.revoke(r, s)
}

// SDKOrgApps handles SDK GET /b2b/organizations/connected_apps (admins).
func (h OrgHandlers) SDKOrgApps(r *http.Request) (any, error) {
	s, err := h.sdk(r, "", orgWide)
	if err != nil {
		return nil, err
	}
	return h.orgApps(r, s)
}

// SDKOrgApp handles SDK GET /b2b/organizations/connected_apps/{connected_app_id} (admins).
func (h OrgHandlers) SDKOrgApp(r *http.Request) (any, error) {
	s, err := h.sdk(r, "", orgWide)
	if err != nil {
		return nil, err
	}
	return h.orgApp(r, s)
}

// SDKMemberApps handles SDK GET /b2b/organizations/members/{member_id}/connected_apps
// and, without {member_id}, the caller's own GET /b2b/organizations/members/connected_apps.
func (h OrgHandlers) SDKMemberApps(r *http.Request) (any, error) {
	s, err := h.sdk(r, r.PathValue("member_id"), organization.ActionGetConnectedApps)
	if err != nil {
		return nil, err
	}
	return h.memberApps(r, s)
}

// SDKRevoke handles SDK POST /b2b/organizations/members/{member_id}/connected_apps/{connected_app_id}/revoke
// and the caller's own POST /b2b/organizations/members/connected_apps/{connected_app_id}/revoke.
func (h OrgHandlers) SDKRevoke(r *http.Request) (any, error) {
	s, err := h.sdk(r, r.PathValue("member_id"), organization.ActionRevokeConnectedApp)
	if err != nil {
		return nil, err
	}
	return h.revoke(r, s)
}
