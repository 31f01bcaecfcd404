package organization

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// AliasEdge resolves organization and member aliases (resolve.go) on the
// backend face before a handler runs, wherever a request names them: the
// path ({organization_id}, {member_id}), the query and the JSON body
// (top-level organization_id and member_id, through httpapi.Decode). The
// handler then sees only ids, so everything it does (the caller's project
// and tenancy, the member session header's RBAC check, the answer) runs
// on the ids exactly as when the caller sent them.
//
// A member alias is resolved within the organization the same request
// names (the path's, else the body's or the query's); a request that names
// no organization has its member_id taken as an id. A reference that
// resolves to nothing is handed on unchanged, so the route refuses it as
// it refuses an unknown id today (organization_not_found, member_not_found):
// an alias never earns an answer an id would not.
type AliasEdge struct{ Store *Store }

// Wrap returns h with the request's references resolved first.
func (e AliasEdge) Wrap(h httpapi.HandlerFunc) httpapi.HandlerFunc {
	body := e.resolveBody // one value per route: no allocation per request
	return func(r *http.Request) (any, error) {
		if err := e.resolvePathAndQuery(r); err != nil {
			return nil, err
		}
		return h(httpapi.SetRefResolver(r, body))
	}
}

// MemberPathValue resolves the path value name as a member of the path's
// organization, for routes whose member is not {member_id} (the backend's
// DELETE .../members/{a}/{b}). Wrap has resolved the organization already.
func (e AliasEdge) MemberPathValue(r *http.Request, name string) error {
	p := project.CallerFrom(r.Context()).Project
	orgID := r.PathValue("organization_id")
	if p == nil || orgID == "" || r.PathValue(name) == "" {
		return nil
	}
	id, err := e.member(r.Context(), p.ID, orgID, r.PathValue(name))
	if err != nil {
		return err
	}
	r.SetPathValue(name, id)
	return nil
}

func (e AliasEdge) resolvePathAndQuery(r *http.Request) error {
	ctx := r.Context()
	p := project.CallerFrom(ctx).Project
	if p == nil {
		return nil
	}
	pathOrg := r.PathValue("organization_id")
	if pathOrg != "" {
		id, err := e.org(ctx, p.ID, pathOrg)
		if err != nil {
			return err
		}
		pathOrg = id
		r.SetPathValue("organization_id", id)
		if ref := r.PathValue("member_id"); ref != "" {
			id, err := e.member(ctx, p.ID, pathOrg, ref)
			if err != nil {
				return err
			}
			r.SetPathValue("member_id", id)
		}
	}
	raw := r.URL.RawQuery
	if !strings.Contains(raw, "organization_id") && !strings.Contains(raw, "member_id") {
		return nil // the usual case, without parsing the query
	}
	q := r.URL.Query()
	org, member := q.Get("organization_id"), q.Get("member_id")
	changed := false
	if org != "" {
		id, err := e.org(ctx, p.ID, org)
		if err != nil {
			return err
		}
		changed = changed || id != org
		org = id
		q.Set("organization_id", id)
	}
	// A route whose path names an organization works within it, whatever
	// else the query says: its member alias is that organization's.
	if pathOrg != "" {
		org = pathOrg
	}
	if member != "" && org != "" {
		id, err := e.member(ctx, p.ID, org, member)
		if err != nil {
			return err
		}
		changed = changed || id != member
		q.Set("member_id", id)
	}
	if changed {
		u := *r.URL
		u.RawQuery = q.Encode()
		r.URL = &u
	}
	return nil
}

// resolveBody is the httpapi.RefResolver of the backend face's bodies.
func (e AliasEdge) resolveBody(r *http.Request, orgRef, memberRef *string) error {
	ctx := r.Context()
	p := project.CallerFrom(ctx).Project
	if p == nil {
		return nil
	}
	org := r.PathValue("organization_id") // resolved by Wrap
	if orgRef != nil && *orgRef != "" {
		id, err := e.org(ctx, p.ID, *orgRef)
		if err != nil {
			return err
		}
		*orgRef = id
		if org == "" {
			org = id
		}
	}
	// As for the query: the path's organization, when it names one.
	if memberRef != nil && *memberRef != "" && org != "" {
		id, err := e.member(ctx, p.ID, org, *memberRef)
		if err != nil {
			return err
		}
		*memberRef = id
	}
	return nil
}

// org resolves ref, handing it on unchanged when it names nothing.
func (e AliasEdge) org(ctx context.Context, projectID, ref string) (string, error) {
	id, err := e.Store.ResolveOrganization(ctx, e.Store.db.Read(), projectID, ref)
	if errors.Is(err, store.ErrNotFound) {
		return ref, nil
	}
	return id, err
}

// member resolves ref within orgID, handing it on unchanged when it names
// nothing.
func (e AliasEdge) member(ctx context.Context, projectID, orgID, ref string) (string, error) {
	id, err := e.Store.ResolveMember(ctx, e.Store.db.Read(), projectID, orgID, ref)
	if errors.Is(err, store.ErrNotFound) {
		return ref, nil
	}
	return id, err
}
