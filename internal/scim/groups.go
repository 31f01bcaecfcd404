package scim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
)

// group is a stored group.
type group struct {
	ID, Name, ExternalID string
	Created, Updated     int64
}

// groupInput is a Group resource as the identity provider writes it.
type groupInput struct {
	DisplayName string     `json:"displayName"`
	ExternalID  string     `json:"externalId"`
	Members     []groupRef `json:"members"`
}

func (s *Service) loadGroup(ctx context.Context, q store.Querier, c *conn, id string) (*group, error) {
	var g group
	err := q.QueryRowContext(ctx, `SELECT group_id, display_name, external_id, created_at, updated_at FROM scim_groups
		WHERE group_id = $1 AND connection_id = $2`, id, c.ID).Scan(&g.ID, &g.Name, &g.ExternalID, &g.Created, &g.Updated)
	if errors.Is(store.MapError(err), store.ErrNotFound) {
		return nil, errNotFound("Group", id)
	}
	if err != nil {
		return nil, fmt.Errorf("scim: group %s: %w", id, err)
	}
	return &g, nil
}

// membersOf lists, per group id, the groups' members as references, each
// group's in the order they joined: one query for a whole page of groups,
// as groupsOf reads a page of users' groups.
func (s *Service) membersOf(ctx context.Context, q store.Querier, c *conn, groupIDs []string) (map[string][]groupRef, error) {
	out := map[string][]groupRef{}
	if len(groupIDs) == 0 {
		return out, nil
	}
	args := []any{c.ID}
	marks := make([]string, len(groupIDs))
	for i, id := range groupIDs {
		args = append(args, id)
		marks[i] = fmt.Sprintf("$%d", i+2)
	}
	rows, err := q.QueryContext(ctx, `SELECT gm.group_id, m.member_id, m.email_address FROM scim_group_members gm
		JOIN scim_groups g ON g.group_id = gm.group_id JOIN members m ON m.member_id = gm.member_id
		WHERE g.connection_id = $1 AND gm.group_id IN (`+strings.Join(marks, ", ")+`)
		ORDER BY gm.group_id, gm.created_at, m.member_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("scim: group members: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var gid string
		var ref groupRef
		if err := rows.Scan(&gid, &ref.Value, &ref.Display); err != nil {
			return nil, err
		}
		ref.Ref = s.location(c, "Users", ref.Value)
		out[gid] = append(out[gid], ref)
	}
	return out, rows.Err()
}

// groupsOf lists, per member id, the groups of c the members belong to.
func (s *Service) groupsOf(ctx context.Context, q store.Querier, c *conn, memberIDs []string) (map[string][]groupRef, error) {
	out := map[string][]groupRef{}
	if len(memberIDs) == 0 {
		return out, nil
	}
	args := []any{c.ID}
	marks := make([]string, len(memberIDs))
	for i, id := range memberIDs {
		args = append(args, id)
		marks[i] = fmt.Sprintf("$%d", i+2)
	}
	// Code point order, as SQLite's, not the order of PostgreSQL's
	// collation (sort.go does the same).
	collate := ""
	if s.d.DB.Dialect() == store.Postgres {
		collate = ` COLLATE "C"`
	}
	rows, err := q.QueryContext(ctx, `SELECT gm.member_id, g.group_id, g.display_name FROM scim_group_members gm
		JOIN scim_groups g ON g.group_id = gm.group_id WHERE g.connection_id = $1 AND gm.member_id IN (`+strings.Join(marks, ", ")+`)
		ORDER BY g.display_name`+collate+`, g.group_id`+collate, args...)
	if err != nil {
		return nil, fmt.Errorf("scim: groups of members: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var mid string
		var ref groupRef
		if err := rows.Scan(&mid, &ref.Value, &ref.Display); err != nil {
			return nil, err
		}
		ref.Ref = s.location(c, "Groups", ref.Value)
		out[mid] = append(out[mid], ref)
	}
	return out, rows.Err()
}

// groupResource is the Group resource of g (groupResources).
func (s *Service) groupResource(ctx context.Context, q store.Querier, r *http.Request, c *conn, g *group) (map[string]any, error) {
	docs, err := s.groupResources(ctx, q, r, c, []*group{g})
	if err != nil {
		return nil, err
	}
	return docs[0], nil
}

// groupResources are the Group resources of gs, their members read in one
// query; members are left out when the request excludes them (Microsoft
// Entra's excludedAttributes=members).
func (s *Service) groupResources(ctx context.Context, q store.Querier, r *http.Request, c *conn, gs []*group) ([]map[string]any, error) {
	var members map[string][]groupRef
	if !excludesMembers(r) {
		ids := make([]string, len(gs))
		for i, g := range gs {
			ids[i] = g.ID
		}
		var err error
		if members, err = s.membersOf(ctx, q, c, ids); err != nil {
			return nil, err
		}
	}
	docs := make([]map[string]any, len(gs))
	for i, g := range gs {
		doc := map[string]any{"schemas": []string{schemaGroup}, "id": g.ID, "displayName": g.Name,
			"meta": newMeta("Group", g.Created, g.Updated, s.location(c, "Groups", g.ID))}
		if g.ExternalID != "" {
			doc["externalId"] = g.ExternalID
		}
		if members != nil {
			ms := members[g.ID]
			if ms == nil {
				ms = []groupRef{}
			}
			doc["members"] = ms
		}
		docs[i] = doc
	}
	return docs, nil
}

func excludesMembers(r *http.Request) bool {
	for _, a := range strings.Split(r.URL.Query().Get("excludedAttributes"), ",") {
		if strings.EqualFold(strings.TrimSpace(a), "members") {
			return true
		}
	}
	return false
}

// maxGroupMembers bounds the member references of one Group request
// (POST and PUT members, or all of a PATCH's operations together). Each
// one is a statement or two in the transaction that holds the group, and
// on SQLite the database's only writer. Identity providers change
// memberships a few at a time (Entra and Okta send the changes as they
// happen; AWS IAM Identity Center's SCIM API takes 100 changes a request,
// and both provision it), so a larger group is created first and filled by
// PATCH.
const maxGroupMembers = 1000

func errTooManyMembers() error {
	return errInvalidValue(fmt.Sprintf("A request may name at most %d group members; send the others in another PATCH.",
		maxGroupMembers))
}

// setMembers makes ids the group's members (add and remove change only
// those named). Every id added must be a user the connection provisioned,
// and not a break-glass member.
//
// The user's registration is share-locked (FOR SHARE on PostgreSQL) until
// the membership commits, so a concurrent DELETE /Users (deleteUser, which
// deletes the registration and then the memberships) either waits for
// this transaction and then deletes the new membership too, or has
// deleted the registration first, and this read, waiting for it, finds no
// user. A plain read would let the membership of a deleted user through,
// to grant the group's role again when the address is provisioned anew.
// SQLite has one writer: the read is already current.
func (s *Service) setMembers(ctx context.Context, q store.Querier, c *conn, groupID string, ids []string, mode string) error {
	if mode == "remove" {
		return s.removeMembers(ctx, q, groupID, ids)
	}
	query := `SELECT m.is_breakglass, m.email_address FROM scim_registrations r JOIN members m ON m.member_id = r.member_id
		WHERE r.connection_id = $1 AND r.member_id = $2`
	pg := s.d.DB.Dialect() == store.Postgres
	if pg {
		query += ` FOR SHARE OF r`
	}
	for _, id := range ids {
		// An id that is not a user of c is refused before anything is
		// locked (as regForUpdate and changeGroup do): the token holder
		// neither holds up nor waits on another organization's member.
		if _, err := s.regOf(ctx, q, c, id); err != nil {
			if se := (*scimError)(nil); errors.As(err, &se) && se.status == http.StatusNotFound {
				return errNotAUser(id)
			}
			return err
		}
		// The member's row first (the key share the membership's foreign
		// key takes anyway), then its registration: the order a member's
		// deletion takes them (the member, then its registration by
		// cascade), so an organization's deletion cannot deadlock with this.
		if pg {
			if _, err := q.ExecContext(ctx, `SELECT 1 FROM members WHERE member_id = $1 FOR KEY SHARE`, id); err != nil {
				return fmt.Errorf("scim: group member: %w", err)
			}
		}
		var breakglass bool
		var email string
		err := q.QueryRowContext(ctx, query, c.ID, id).Scan(&breakglass, &email)
		if errors.Is(store.MapError(err), store.ErrNotFound) {
			return errNotAUser(id) // deleted while this waited for its row
		}
		if err != nil {
			return fmt.Errorf("scim: group member: %w", err)
		}
		if err := refuseBreakglass(breakglass, email); err != nil {
			return err
		}
	}
	if mode == "replace" {
		if _, err := q.ExecContext(ctx, `DELETE FROM scim_group_members WHERE group_id = $1`, groupID); err != nil {
			return fmt.Errorf("scim: replace group members: %w", err)
		}
	}
	now := store.Millis(s.d.Clock.Now())
	for _, id := range ids {
		if _, err := q.ExecContext(ctx, `INSERT INTO scim_group_members (group_id, member_id, created_at) VALUES ($1, $2, $3)
			ON CONFLICT (group_id, member_id) DO NOTHING`, groupID, id, now); err != nil {
			return fmt.Errorf("scim: group member %s: %w", id, err)
		}
	}
	return nil
}

func errNotAUser(id string) error {
	return errInvalidValue("Group member " + id + " is not a user of this SCIM connection.")
}

// removeBatch is how many members one DELETE of removeMembers names,
// well under either engine's bound on a statement's parameters.
const removeBatch = 500

// removeMembers ends the memberships of ids in the group, a batch of
// them a statement: an id that is no member is no error (a remove of
// what is absent changes nothing), and costs no statement of its own.
func (s *Service) removeMembers(ctx context.Context, q store.Querier, groupID string, ids []string) error {
	for batch := range slices.Chunk(ids, removeBatch) {
		args := []any{groupID}
		marks := make([]string, len(batch))
		for i, id := range batch {
			args = append(args, id)
			marks[i] = fmt.Sprintf("$%d", i+2)
		}
		if _, err := q.ExecContext(ctx, `DELETE FROM scim_group_members WHERE group_id = $1 AND member_id IN (`+
			strings.Join(marks, ", ")+`)`, args...); err != nil {
			return fmt.Errorf("scim: remove group members: %w", err)
		}
	}
	return nil
}

// refIDs are the ids refs name, trimmed, without blanks and duplicates,
// in order.
func refIDs(refs []groupRef) []string {
	ids := make([]string, 0, len(refs))
	for _, r := range refs {
		if v := strings.TrimSpace(r.Value); v != "" {
			ids = append(ids, v)
		}
	}
	return dedup(ids)
}

// saveGroup writes a group's name and external id, refusing a name
// another group of the connection has and values over their bounds.
func (s *Service) saveGroup(ctx context.Context, q store.Querier, c *conn, g *group, insert bool) error {
	g.Name = strings.TrimSpace(g.Name)
	if g.Name == "" || len(g.Name) > 256 {
		return errInvalidValue("displayName is required (at most 256 characters).")
	}
	if len(g.ExternalID) > maxExternalID {
		// A user's bound: the group is answered in every list of groups.
		return errInvalidValue(fmt.Sprintf("externalId is longer than %d bytes.", maxExternalID))
	}
	key := fold(g.Name)
	if !insert {
		// A group keeps its key while its name folds alike: one that
		// shares its name with an older group since the keys were folded
		// (FoldGroupNames) can still be written as it is named.
		var was, wasKey string
		if err := q.QueryRowContext(ctx, `SELECT display_name, display_name_key FROM scim_groups WHERE group_id = $1`,
			g.ID).Scan(&was, &wasKey); err != nil {
			return fmt.Errorf("scim: group name: %w", err)
		}
		if fold(was) == key {
			key = wasKey
		}
	}
	var n int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM scim_groups WHERE connection_id = $1 AND display_name_key = $2
		AND group_id <> $3`, c.ID, key, g.ID).Scan(&n); err != nil {
		return fmt.Errorf("scim: group name: %w", err)
	}
	if n > 0 {
		return errUniqueness("A group named " + g.Name + " already exists.")
	}
	g.Updated = store.Millis(s.d.Clock.Now())
	var err error
	if insert {
		g.Created = g.Updated
		_, err = q.ExecContext(ctx, `INSERT INTO scim_groups (group_id, connection_id, organization_id, display_name, display_name_key,
			external_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, g.ID, c.ID, c.OrgID, g.Name,
			key, g.ExternalID, g.Created, g.Updated)
	} else {
		_, err = q.ExecContext(ctx, `UPDATE scim_groups SET display_name = $1, display_name_key = $2, external_id = $3, updated_at = $4
			WHERE group_id = $5`, g.Name, key, g.ExternalID, g.Updated, g.ID)
	}
	if errors.Is(store.MapError(err), store.ErrConflict) {
		return errUniqueness("A group named " + g.Name + " already exists.")
	}
	if err != nil {
		return fmt.Errorf("scim: save group: %w", err)
	}
	return nil
}

func (s *Service) createGroup(r *http.Request, c *conn) (int, any, error) {
	ctx := r.Context()
	var in groupInput
	if err := readJSON(r, &in); err != nil {
		return 0, nil, err
	}
	p, err := s.d.Projects.ByID(ctx, c.ProjectID)
	if err != nil {
		return 0, nil, err
	}
	if len(in.Members) > maxGroupMembers {
		return 0, nil, errTooManyMembers()
	}
	members := refIDs(in.Members)
	g := &group{ID: ids.New("scim-group", p.Env), Name: in.DisplayName, ExternalID: strings.TrimSpace(in.ExternalID)}
	var out map[string]any
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		if err := s.saveGroup(ctx, q, c, g, true); err != nil {
			return err
		}
		if err := s.setMembers(ctx, q, c, g.ID, members, "add"); err != nil {
			return err
		}
		if err := s.record(ctx, q, c, "group_created", "", map[string]any{"group_id": g.ID}); err != nil {
			return err
		}
		out, err = s.groupResource(ctx, q, r, c, g)
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, out, nil
}

func (s *Service) getGroup(r *http.Request, c *conn) (int, any, error) {
	ctx, q := r.Context(), s.d.DB.Read()
	g, err := s.loadGroup(ctx, q, c, r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	out, err := s.groupResource(ctx, q, r, c, g)
	return http.StatusOK, out, err
}

func (s *Service) listGroups(r *http.Request, c *conn) (int, any, error) {
	ctx, q := r.Context(), s.d.DB.Read()
	start, count, err := paging(r)
	if err != nil {
		return 0, nil, err
	}
	d := s.d.DB.Dialect()
	where, args, err := groupFilter(d, r.URL.Query().Get("filter"))
	if err != nil {
		return 0, nil, err
	}
	order, err := orderBy(r, d, groupSortKeys, urnGroup, "g.created_at", "g.group_id")
	if err != nil {
		return 0, nil, err
	}
	args = append([]any{c.ID}, args...)
	cond := ` WHERE g.connection_id = $1` + where
	var total int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM scim_groups g`+cond, args...).Scan(&total); err != nil {
		return 0, nil, fmt.Errorf("scim: count groups: %w", err)
	}
	rows, err := q.QueryContext(ctx, `SELECT g.group_id, g.display_name, g.external_id, g.created_at, g.updated_at
		FROM scim_groups g`+cond+order+fmt.Sprintf(` LIMIT %d OFFSET %d`, count, start-1), args...)
	if err != nil {
		return 0, nil, fmt.Errorf("scim: list groups: %w", err)
	}
	var gs []*group
	for rows.Next() {
		var g group
		if err := rows.Scan(&g.ID, &g.Name, &g.ExternalID, &g.Created, &g.Updated); err != nil {
			rows.Close()
			return 0, nil, err
		}
		gs = append(gs, &g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, nil, err
	}
	docs, err := s.groupResources(ctx, q, r, c, gs)
	if err != nil {
		return 0, nil, err
	}
	res := []any{}
	for _, doc := range docs {
		res = append(res, doc)
	}
	return http.StatusOK, listResponse{Schemas: []string{schemaList}, TotalResults: total, StartIndex: start,
		ItemsPerPage: len(res), Resources: res}, nil
}

func (s *Service) replaceGroup(r *http.Request, c *conn) (int, any, error) {
	var in groupInput
	if err := readJSON(r, &in); err != nil {
		return 0, nil, err
	}
	if len(in.Members) > maxGroupMembers {
		return 0, nil, errTooManyMembers()
	}
	members := refIDs(in.Members)
	return s.changeGroup(r, c, func(ctx context.Context, q store.Querier, g *group) error {
		g.Name, g.ExternalID = in.DisplayName, strings.TrimSpace(in.ExternalID)
		if err := s.saveGroup(ctx, q, c, g, false); err != nil {
			return err
		}
		return s.setMembers(ctx, q, c, g.ID, members, "replace")
	})
}

// patchGroup applies the operations identity providers send for groups:
// a rename (displayName, by path or in a path-less object) and member
// changes (add or remove a list, remove members[value eq "id"], replace
// them all). The operations are read and checked before the transaction
// (groupChanges); inside it they are only applied.
func (s *Service) patchGroup(r *http.Request, c *conn) (int, any, error) {
	var req patchRequest
	if err := readJSON(r, &req); err != nil {
		return 0, nil, err
	}
	changes, err := groupChanges(req.Operations)
	if err != nil {
		return 0, nil, err
	}
	return s.changeGroup(r, c, func(ctx context.Context, q store.Querier, g *group) error {
		renamed := false
		for _, ch := range changes {
			switch {
			case ch.members:
				if err := s.setMembers(ctx, q, c, g.ID, ch.ids, ch.mode); err != nil {
					return err
				}
			case ch.attr == "displayname":
				g.Name, renamed = ch.text, true
			case ch.attr == "externalid":
				g.ExternalID, renamed = strings.TrimSpace(ch.text), true
			}
		}
		if renamed {
			return s.saveGroup(ctx, q, c, g, false)
		}
		return nil
	})
}

// groupChange is one change a Group PATCH makes: a member change (ids in
// mode add, remove or replace), or attr (displayname or externalid, folded)
// set to text.
type groupChange struct {
	members    bool
	ids        []string
	mode       string
	attr, text string
}

// groupChanges reads a Group PATCH's operations into the changes they
// make, in order, refusing what patchGroup cannot apply and more than
// maxGroupMembers member references in all (counted before duplicates
// are dropped). Member changes of one mode that follow each other are
// one change: Okta removes each member in an operation of its own, and
// their removal is then one statement.
func groupChanges(ops []patchOp) ([]groupChange, error) {
	if len(ops) == 0 {
		return nil, errInvalidValue("A PATCH needs at least one operation.")
	}
	// Every operation names at least one member or attribute: bounded by
	// the members' bound, as an operation may name a single member.
	if len(ops) > maxGroupMembers {
		return nil, errTooManyMembers()
	}
	var out []groupChange
	refs := 0
	members := func(ids []string, mode string) {
		if n := len(out); n > 0 && out[n-1].members && out[n-1].mode == mode && mode != "replace" {
			out[n-1].ids = append(out[n-1].ids, ids...)
			return
		}
		out = append(out, groupChange{members: true, ids: ids, mode: mode})
	}
	for _, op := range ops {
		kind := strings.ToLower(op.Op)
		if kind != "add" && kind != "replace" && kind != "remove" {
			return nil, errInvalidSyntax(fmt.Sprintf("Unknown PATCH operation %q.", op.Op))
		}
		fields := map[string]any{}
		if strings.TrimSpace(op.Path) == "" {
			if kind == "remove" {
				return nil, errNoTarget() // RFC 7644 3.5.2.2, as for a User
			}
			obj, ok := op.Value.(map[string]any)
			if !ok {
				return nil, errInvalidValue("A PATCH operation without a path needs an object value.")
			}
			fields = obj
		} else {
			fields[op.Path] = op.Value
		}
		// In key order, so a push that names one attribute twice (in two
		// spellings) always ends the same way.
		for _, path := range slices.Sorted(maps.Keys(fields)) {
			value := fields[path]
			pp, err := parsePath(path)
			if err != nil {
				return nil, err
			}
			if pp.ext || pp.foreign {
				return nil, errInvalidPath(path) // no extension of a Group is kept
			}
			attr := strings.ToLower(pp.attr)
			switch attr {
			case "displayname", "externalid", "id":
				if pp.sub != "" || pp.filtered {
					return nil, errInvalidPath(path) // single-valued strings
				}
			}
			switch attr {
			case "displayname", "externalid":
				v, ok := value.(string)
				if !ok && kind != "remove" {
					return nil, errInvalidValue(pp.attr + " must be a string.")
				}
				out = append(out, groupChange{attr: attr, text: v})
			case "members":
				n, err := memberCount(value)
				if err != nil {
					return nil, err
				}
				if refs += max(n, 1); refs > maxGroupMembers {
					return nil, errTooManyMembers()
				}
				ids, err := memberRefs(value)
				if err != nil {
					return nil, err
				}
				mode := kind
				if pp.filtered {
					if pp.filterAttr != "value" || kind != "remove" {
						return nil, errInvalidPath(path)
					}
					ids, mode = []string{pp.filterValue}, "remove"
				} else if kind == "remove" && value == nil {
					ids, mode = nil, "replace" // remove every member
				}
				members(ids, mode)
			case "id":
				// Okta repeats the id in its path-less replace.
			default:
				return nil, errInvalidPath(path)
			}
		}
	}
	for i, ch := range out {
		if ch.members {
			out[i].ids = dedup(ch.ids)
		}
	}
	return out, nil
}

// memberCount is how many references a members value holds, for the
// bound, before it is decoded.
func memberCount(v any) (int, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case map[string]any:
		return 1, nil
	case []any:
		return len(x), nil
	}
	return 0, errInvalidValue("members must be a list of {\"value\": id} objects.")
}

// memberRefs reads a members value: a list of {value} objects (or one).
func memberRefs(v any) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	if m, ok := v.(map[string]any); ok {
		v = []any{m}
	}
	raw, _ := json.Marshal(v)
	var refs []groupRef
	if err := json.Unmarshal(raw, &refs); err != nil {
		return nil, errInvalidValue("members must be a list of {\"value\": id} objects.")
	}
	return refIDs(refs), nil
}

// dedup drops repeated ids, keeping the first of each, in order. By a
// set: a search of the list for each id made a long list quadratic.
func dedup(ids []string) []string {
	out := make([]string, 0, len(ids))
	seen := make(map[string]struct{}, len(ids))
	for _, id := range ids {
		if _, dup := seen[id]; !dup {
			seen[id] = struct{}{}
			out = append(out, id)
		}
	}
	return out
}

// changeGroup runs change on the group in a transaction and answers the
// group as it then is. The group's row is locked, so concurrent changes
// run one after the other; an id that is not a group of c is refused
// before anything is locked (as regForUpdate does for users): the token
// holder locks no other organization's group.
func (s *Service) changeGroup(r *http.Request, c *conn, change func(context.Context, store.Querier, *group) error) (int, any, error) {
	ctx := r.Context()
	id := r.PathValue("id")
	var out map[string]any
	err := s.d.DB.Tx(ctx, func(q store.Querier) error {
		if _, err := s.loadGroup(ctx, q, c, id); err != nil {
			return err
		}
		// A group deleted meanwhile is the reread's to answer (404).
		if err := s.d.DB.LockRow(ctx, q, "scim_groups", "group_id", id); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		g, err := s.loadGroup(ctx, q, c, id) // as the last writer left it
		if err != nil {
			return err
		}
		if err := change(ctx, q, g); err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, `UPDATE scim_groups SET updated_at = $1 WHERE group_id = $2`,
			store.Millis(s.d.Clock.Now()), g.ID); err != nil {
			return fmt.Errorf("scim: touch group: %w", err)
		}
		if err := s.record(ctx, q, c, "group_updated", "", map[string]any{"group_id": g.ID}); err != nil {
			return err
		}
		g, err = s.loadGroup(ctx, q, c, g.ID)
		if err != nil {
			return err
		}
		out, err = s.groupResource(ctx, q, r, c, g)
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, out, nil
}

// deleteGroup removes the group with its memberships and the
// connection's role assignments naming it. The organization and
// connection rows are locked (load) before the group's row is deleted,
// in the order an organization's deletion cascades.
func (s *Service) deleteGroup(r *http.Request, c *conn) (int, any, error) {
	ctx := r.Context()
	id := r.PathValue("id")
	err := s.d.DB.Tx(ctx, func(q store.Querier) error {
		cc, err := s.load(ctx, q, c.ProjectID, c.OrgID, c.ID, true)
		if err != nil {
			return err
		}
		if _, err := s.loadGroup(ctx, q, c, id); err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, `DELETE FROM scim_groups WHERE group_id = $1`, id); err != nil {
			return fmt.Errorf("scim: delete group: %w", err)
		}
		kept := slices.DeleteFunc(slices.Clone(cc.GroupRoles), func(a GroupRole) bool { return a.GroupID == id })
		if len(kept) != len(cc.GroupRoles) {
			cc.GroupRoles = kept
			if err := s.save(ctx, q, cc); err != nil {
				return err
			}
		}
		return s.record(ctx, q, c, "group_deleted", "", map[string]any{"group_id": id})
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}

// groupPage is a page of the connection's groups for the connection APIs,
// after cursor (a group id) in group id order.
func (s *Service) groupPage(ctx context.Context, q store.Querier, c *conn, cursor string, limit int) ([]GroupWire, *string, error) {
	rows, err := q.QueryContext(ctx, `SELECT group_id, display_name FROM scim_groups WHERE connection_id = $1 AND group_id > $2
		ORDER BY group_id LIMIT $3`, c.ID, cursor, limit+1)
	if err != nil {
		return nil, nil, fmt.Errorf("scim: group page: %w", err)
	}
	defer rows.Close()
	out := []GroupWire{}
	for rows.Next() {
		g := GroupWire{OrganizationID: c.OrgID, ConnectionID: c.ID}
		if err := rows.Scan(&g.GroupID, &g.GroupName); err != nil {
			return nil, nil, err
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if len(out) > limit {
		next := out[limit-1].GroupID
		return out[:limit], &next, nil
	}
	return out, nil, nil
}
