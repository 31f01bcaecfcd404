package organization

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/keyset"
	"github.com/latchkey/latchkey/internal/store"
)

// SearchParams is an organization search: the backend's
// POST /v1/b2b/organizations/search body.
type SearchParams struct {
	Query  *Query  `json:"query"`
	Limit  int     `json:"limit"`
	Cursor *string `json:"cursor"`
}

// SearchResult is one page of organizations.
type SearchResult struct {
	Organizations []*Organization
	Metadata      ResultsMetadata
}

// liveMember restricts a member subquery to members of the organization
// row being filtered who still belong to it.
const liveMember = `SELECT 1 FROM members m WHERE m.organization_id = organizations.organization_id AND m.status <> 'deleted' AND `

// orgFilters are the Node SDK's organization search filters plus the
// policy filters of the API reference.
var orgFilters = map[string]filterFunc{
	"organization_ids":        listFilter("organization_id", false),
	"organization_slugs":      listFilter("organization_slug", true),
	"organization_name_fuzzy": foldedFuzzyFilter("organization_name_folded", apierr.OrgSearchNameFuzzyTooShort),
	"organization_slug_fuzzy": fuzzyFilter("organization_slug", apierr.OrgSearchSlugFuzzyTooShort),
	"member_emails": func(w *sqlWhere, name string, raw json.RawMessage) (string, error) {
		vs, err := w.list(name, raw, emailaddr.Fold) // as addresses are stored
		if err != nil {
			return "", err
		}
		return "EXISTS (" + liveMember + w.in("m.email_address", vs) + ")", nil
	},
	"member_email_fuzzy": func(w *sqlWhere, name string, raw json.RawMessage) (string, error) {
		v, err := fuzzyValue(name, raw, apierr.OrgSearchMemberEmailFuzzyTooShort)
		if err != nil {
			return "", err
		}
		return "EXISTS (" + liveMember + w.contains("m.email_address", v) + ")", nil
	},
	"allowed_domains": jsonListFilter("email_allowed_domains", nil, true),
	"allowed_domain_fuzzy": func(w *sqlWhere, name string, raw json.RawMessage) (string, error) {
		v, err := fuzzyValue(name, raw, apierr.OrgSearchAllowedDomainFuzzyTooShort)
		if err != nil {
			return "", err
		}
		// The column is a JSON list; a quote or comma in the substring
		// could only match the list's punctuation, never a domain.
		if strings.ContainsAny(v, `",[]\`) {
			return "1 = 0", nil
		}
		return w.contains("email_allowed_domains", v), nil
	},
	"claimed_email_domains": func(w *sqlWhere, name string, raw json.RawMessage) (string, error) {
		var empty []string
		if json.Unmarshal(raw, &empty) == nil && len(empty) == 0 {
			return "", apierr.New(apierr.OrgSearchMissingClaimedDomains).WithDetails(map[string]any{"field": "query.operands", "filter_name": name})
		}
		vs, err := w.list(name, raw, strings.ToLower)
		if err != nil {
			return "", err
		}
		// The claims index holds exactly the organizations' lists, one
		// row per domain: an exact, indexed match.
		return "EXISTS (SELECT 1 FROM organization_claimed_domains c WHERE c.organization_id = organizations.organization_id AND " +
			w.in("c.domain", vs) + ")", nil
	},
	"allowed_auth_methods":   jsonListFilter("allowed_auth_methods", AuthMethods, false),
	"allowed_mfa_methods":    jsonListFilter("allowed_mfa_methods", MFAMethods, false),
	"email_jit_provisioning": policyFilter("email_jit_provisioning", AllAllowed, Restricted, NotAllowed),
	"email_invites":          policyFilter("email_invites", AllAllowed, Restricted, NotAllowed),
	"auth_methods":           policyFilter("auth_methods", AllAllowed, Restricted),
	"mfa_methods":            policyFilter("mfa_methods", AllAllowed, Restricted),
	"mfa_policy":             policyFilter("mfa_policy", MFAOptional, MFARequiredForAll),
}

func listFilter(col string, lower bool) filterFunc {
	return func(w *sqlWhere, name string, raw json.RawMessage) (string, error) {
		vs, err := w.list(name, raw, lowerIf(lower))
		if err != nil {
			return "", err
		}
		return w.in(col, vs), nil
	}
}

func fuzzyFilter(col string, tooShort apierr.Type) filterFunc {
	return func(w *sqlWhere, name string, raw json.RawMessage) (string, error) {
		v, err := fuzzyValue(name, raw, tooShort)
		if err != nil {
			return "", err
		}
		return w.contains(col, v), nil
	}
}

// foldedFuzzyFilter is fuzzyFilter for a column of foldName keys: names
// are free text in any script, so the server's folding decides, not the
// engine's LOWER() (containsFolded).
func foldedFuzzyFilter(col string, tooShort apierr.Type) filterFunc {
	return func(w *sqlWhere, name string, raw json.RawMessage) (string, error) {
		v, err := fuzzyValue(name, raw, tooShort)
		if err != nil {
			return "", err
		}
		return w.containsFolded(col, v), nil
	}
}

// lowerIf folds values compared against lower-cased columns (emails and
// domains are stored normalised).
func lowerIf(lower bool) func(string) string {
	if lower {
		return strings.ToLower
	}
	return nil
}

// jsonListFilter matches organizations whose JSON list column holds any of
// the given values.
func jsonListFilter(col string, known []string, lower bool) filterFunc {
	return func(w *sqlWhere, name string, raw json.RawMessage) (string, error) {
		vs, err := w.list(name, raw, lowerIf(lower))
		if err != nil {
			return "", err
		}
		if known != nil {
			if err := checkKnown(name, vs, known); err != nil {
				return "", err
			}
		}
		return anyOf(vs, func(v string) string { return w.jsonHas(col, v) }), nil
	}
}

func policyFilter(col string, known ...string) filterFunc {
	return func(w *sqlWhere, name string, raw json.RawMessage) (string, error) {
		vs, err := w.oneOrMany(name, raw)
		if err != nil {
			return "", err
		}
		if err := checkKnown(name, vs, known); err != nil {
			return "", err
		}
		return w.in(col, vs), nil
	}
}

// missingFilterValue names the API family's type for an operand of
// these filters sent without filter_value (or with null), where it has
// one of its own.
var missingFilterValue = map[string]apierr.Type{"claimed_email_domains": apierr.OrgSearchMissingClaimedDomains}

// Search returns one page of the project's organizations matching p, in
// creation order.
func (s *Store) Search(ctx context.Context, projectID string, p SearchParams) (*SearchResult, error) {
	w := &sqlWhere{dialect: s.db.Dialect()}
	where := "project_id = " + w.arg(projectID)
	filter, err := compileQuery(w, p.Query, orgFilters)
	if err != nil {
		return nil, err
	}
	if filter != "" {
		where += " AND " + filter
	}
	orgs, meta, err := searchPage(ctx, s.db.Read(), keyset.Spec[*Organization]{Table: "organizations", Columns: orgSelect,
		IDCol: "organization_id", Scan: scanOrg,
		Key: func(o *Organization) keyset.Cursor {
			return keyset.Cursor{CreatedAt: store.Millis(o.CreatedAt), ID: o.OrganizationID}
		}},
		w, where, p.Cursor, p.Limit)
	if err != nil {
		return nil, err
	}
	out := &SearchResult{Organizations: orgs, Metadata: meta}
	return out, nil
}
