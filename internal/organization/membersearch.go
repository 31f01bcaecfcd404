package organization

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/keyset"
	"github.com/latchkey/latchkey/internal/store"
)

// MemberSearchParams is a member search: organization_ids is required and
// bounds the search; the query filters within those organizations.
type MemberSearchParams struct {
	OrganizationIDs []string `json:"organization_ids"`
	Query           *Query   `json:"query"`
	Limit           int      `json:"limit"`
	Cursor          *string  `json:"cursor"`
}

// MemberSearchResult is one page of members with their organizations.
type MemberSearchResult struct {
	Members       []*Member
	Organizations map[string]*Organization
	Metadata      ResultsMetadata
}

// Statuses lists every member status.
var Statuses = []string{StatusActive, StatusPending, StatusInvited, StatusDeleted}

var memberFilters = map[string]filterFunc{
	"member_ids":                    listFilter("member_id", false),
	"member_email_fuzzy":            fuzzyFilter("email_address", apierr.MemberSearchEmailFuzzyTooShort),
	"member_is_breakglass":          boolFilter("is_breakglass = "),
	"member_mfa_phone_numbers":      listFilter("mfa_phone_number", false),
	"member_mfa_phone_number_fuzzy": fuzzyFilter("mfa_phone_number", apierr.MemberSearchMFAPhoneFuzzyTooShort),
	"member_emails": func(w *sqlWhere, name string, raw json.RawMessage) (string, error) {
		vs, err := w.list(name, raw, emailaddr.Fold) // as addresses are stored
		if err != nil {
			return "", err
		}
		return w.in("email_address", vs), nil
	},
	"statuses": func(w *sqlWhere, name string, raw json.RawMessage) (string, error) {
		vs, err := w.list(name, raw, strings.ToLower)
		if err != nil {
			return "", err
		}
		if err := checkKnown(name, vs, Statuses); err != nil {
			return "", err
		}
		return w.in("status", vs), nil
	},
	"member_password_exists": func(w *sqlWhere, name string, raw json.RawMessage) (string, error) {
		exists, err := boolValue(name, raw)
		if err != nil {
			return "", err
		}
		if exists {
			return memberPasswordID + " <> ''", nil
		}
		return memberPasswordID + " = ''", nil
	},
	// A member holds a role directly (the roles column), through their
	// email domain (the organization's assignments), through an implicit
	// source (a SAML connection or group, listed by the source), or, for
	// stytch_member, always: the roles member.roles reports.
	"member_roles": func(w *sqlWhere, name string, raw json.RawMessage) (string, error) {
		roles, err := w.list(name, raw, nil)
		if err != nil {
			return "", err
		}
		if slices.Contains(roles, DefaultRole) {
			return "1 = 1", nil
		}
		// Role ids are case-sensitive: exact on both engines (jsonHas).
		conds := []string{anyOf(roles, func(role string) string { return w.jsonHas("roles", role) })}
		if c := w.emailAssigned(roles); c != "" {
			conds = append(conds, c)
		}
		if w.roleHolders != nil {
			ids, err := w.roleHolders(roles)
			if err != nil {
				return "", err
			}
			if len(ids) > 0 {
				conds = append(conds, w.inJSON("member_id", ids))
			}
		}
		return orTree(conds), nil
	},
}

// emailAssigned matches the members of the searched organizations whose
// verified email address is at a domain an organization assigns one of
// roles to, one condition per domain (however many roles and
// organizations assign it), or "" when none does: an unverified address
// grants no role (Member.computeRoles). Organizations are visited in id
// order, so the same search is the same statement.
func (w *sqlWhere) emailAssigned(roles []string) string {
	wanted := make(map[string]bool, len(roles))
	for _, r := range roles {
		wanted[r] = true
	}
	byDomain := map[string][]string{}
	var domains []string
	for _, id := range slices.Sorted(maps.Keys(w.orgs)) {
		for _, a := range w.orgs[id].RBACEmailImplicitRoleAssignments {
			if !wanted[a.RoleID] {
				continue
			}
			if _, ok := byDomain[a.Domain]; !ok {
				domains = append(domains, a.Domain)
			}
			if ids := byDomain[a.Domain]; len(ids) == 0 || ids[len(ids)-1] != id {
				byDomain[a.Domain] = append(ids, id)
			}
		}
	}
	conds := make([]string, len(domains))
	for i, d := range domains {
		conds[i] = "(email_address LIKE " + w.arg("%@"+store.LikeEscape(d)) + ` ESCAPE '\' AND ` + w.in("organization_id", byDomain[d]) + ")"
	}
	if len(conds) == 0 {
		return ""
	}
	return "(email_address_verified = " + w.arg(true) + " AND " + orTree(conds) + ")"
}

func boolFilter(cond string) filterFunc {
	return func(w *sqlWhere, name string, raw json.RawMessage) (string, error) {
		v, err := boolValue(name, raw)
		if err != nil {
			return "", err
		}
		return cond + w.arg(v), nil
	}
}

// SearchMembers returns one page of members of the given organizations of
// the project, in creation order. Deleted members are left out unless the
// query filters on statuses, as the API family does.
func (s *Store) SearchMembers(ctx context.Context, projectID string, p MemberSearchParams) (*MemberSearchResult, error) {
	return s.searchMembers(ctx, s.db.Read(), projectID, p)
}

// searchMembers is SearchMembers reading members through q (the
// organizations come from the store's cache).
func (s *Store) searchMembers(ctx context.Context, q store.Querier, projectID string, p MemberSearchParams) (*MemberSearchResult, error) {
	if len(p.OrganizationIDs) == 0 || len(p.OrganizationIDs) > maxSearchOrgs {
		return nil, apierr.Invalid("organization_ids", fmt.Sprintf("organization_ids must name 1 to %d organizations.", maxSearchOrgs))
	}
	orgs := map[string]*Organization{}
	for _, id := range p.OrganizationIDs {
		if orgs[id] != nil {
			continue
		}
		o, err := s.Get(ctx, projectID, id)
		if err != nil {
			return nil, NotFound(err, apierr.OrganizationNotFound)
		}
		orgs[id] = o
	}
	ids := slices.Sorted(maps.Keys(orgs))
	w := &sqlWhere{dialect: s.db.Dialect(), orgs: orgs, roleHolders: func(roleIDs []string) ([]string, error) {
		var out []string
		for _, src := range s.implicit {
			if h, ok := src.(ImplicitRoleHolders); ok {
				got, err := h.RoleHolders(ctx, q, projectID, ids, roleIDs)
				if err != nil {
					return nil, err
				}
				out = append(out, got...)
			}
		}
		return out, nil
	}}
	where := "project_id = " + w.arg(projectID) + " AND " + w.in("organization_id", ids)
	filter, err := compileQuery(w, p.Query, memberFilters)
	if err != nil {
		return nil, err
	}
	if filter != "" {
		where += " AND " + filter
	}
	if !filtersOn(p.Query, "statuses") {
		where += " AND status <> " + w.arg(StatusDeleted)
	}
	members, meta, err := searchPage(ctx, q, keyset.Spec[*Member]{Table: "members", Columns: s.memberSelect(), IDCol: "member_id",
		Scan: scanMember, Key: func(m *Member) keyset.Cursor {
			return keyset.Cursor{CreatedAt: store.Millis(m.CreatedAt), ID: m.MemberID}
		}},
		w, where, p.Cursor, p.Limit)
	if err != nil {
		return nil, err
	}
	out := &MemberSearchResult{Members: members, Organizations: map[string]*Organization{}, Metadata: meta}
	for _, m := range out.Members {
		out.Organizations[m.OrganizationID] = orgs[m.OrganizationID]
	}
	return out, s.decorate(ctx, q, out.Members...)
}

func filtersOn(q *Query, name string) bool {
	if q == nil {
		return false
	}
	for _, op := range q.Operands {
		if op.FilterName == name {
			return true
		}
	}
	return false
}
