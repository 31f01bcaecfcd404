package scim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// reg is a provisioned member: their registration with the member fields
// a User resource shows. Linked is set when the connection linked a
// member that already existed rather than creating them (see
// refuseAddressChange).
type reg struct {
	ID, MemberID, ExternalID string
	Attrs                    user
	Created, Updated         int64
	Email, Name, Status      string
	Linked, Breakglass       bool
}

const regSelect = `SELECT r.registration_id, r.member_id, r.external_id, r.attributes, r.created_at, r.updated_at, r.linked,
	m.email_address, m.name, m.status, m.is_breakglass FROM scim_registrations r JOIN members m ON m.member_id = r.member_id`

func scanReg(row interface{ Scan(...any) error }) (*reg, error) {
	var g reg
	var attrs string
	if err := row.Scan(&g.ID, &g.MemberID, &g.ExternalID, &attrs, &g.Created, &g.Updated, &g.Linked, &g.Email, &g.Name, &g.Status,
		&g.Breakglass); err != nil {
		return nil, store.MapError(err)
	}
	if err := json.Unmarshal([]byte(attrs), &g.Attrs); err != nil {
		return nil, fmt.Errorf("scim: decode attributes: %w", err)
	}
	return &g, nil
}

// regOf loads the registration of member id at c (a SCIM 404 when the
// connection did not provision them).
func (s *Service) regOf(ctx context.Context, q store.Querier, c *conn, id string) (*reg, error) {
	g, err := scanReg(q.QueryRowContext(ctx, regSelect+` WHERE r.connection_id = $1 AND r.member_id = $2`, c.ID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, errNotFound("User", id)
	}
	return g, err
}

// regForUpdate is regOf for a change written back from the read: the
// member's row, then the registration's, are locked first
// (store.DB.LockRow), so two concurrent updates of one user run one after
// the other and the second reads what the first wrote. The member's row
// comes first because every member write (deleteUser's DeleteMember,
// UpdateMember) locks it before the registration. An id that is not a
// user of c is refused before anything is locked: the token holder locks
// no other organization's member.
func (s *Service) regForUpdate(ctx context.Context, q store.Querier, c *conn, id string) (*reg, error) {
	if _, err := s.regOf(ctx, q, c, id); err != nil {
		return nil, err
	}
	for _, table := range []string{"members", "scim_registrations"} {
		if err := s.d.DB.LockRow(ctx, q, table, "member_id", id); err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	return s.regOf(ctx, q, c, id)
}

// refuseBreakglass keeps SCIM away from break-glass members: they are the
// way in when the identity provider is down or compromised, so it may
// neither link, change nor deactivate them.
func refuseBreakglass(breakglass bool, email string) error {
	if breakglass {
		return &scimError{http.StatusBadRequest, "mutability", "The address " + email +
			" belongs to a break-glass member, whom SCIM provisioning does not manage."}
	}
	return nil
}

// addressChange reports whether a request asks to move g's member to
// email: only when the identity provider sends an address other than the
// one it last sent (g's stored attributes). An address changed outside
// SCIM (by an admin, or the member's own verified change) is not undone
// by a later push that still carries the old one, and a deprovisioning
// PATCH of such a member still goes through.
func addressChange(g *reg, email string) bool {
	if email == "" || email == g.Email {
		return false
	}
	sent, err := g.Attrs.email()
	return err != nil || email != sent
}

// refuseAddressChange keeps a linked member's email address: the member
// existed before the connection (an admin, say), and letting the bearer
// token move them to another address would let its holder log in as them.
// Members the connection created may change address.
func refuseAddressChange(g *reg, email string) error {
	if g.Linked && addressChange(g, email) {
		return &scimError{http.StatusBadRequest, "mutability", "The member " + g.Email +
			" existed before this SCIM connection linked them, so their email address cannot be changed through SCIM; " +
			"change it in the organization's member settings."}
	}
	return nil
}

// userTaken refuses a userName another registration of c has.
func (s *Service) userTaken(ctx context.Context, q store.Querier, c *conn, userName, except string) error {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM scim_registrations WHERE connection_id = $1 AND user_name_key = $2
		AND member_id <> $3`, c.ID, fold(userName), except).Scan(&n); err != nil {
		return fmt.Errorf("scim: user name: %w", err)
	}
	if n > 0 {
		return errUniqueness("A user with userName " + userName + " already exists.")
	}
	return nil
}

// resource is the User resource of g.
func (s *Service) resource(c *conn, g *reg, groups []groupRef) map[string]any {
	doc := g.Attrs.toDoc()
	doc["schemas"] = []string{schemaUser}
	if g.Attrs.Enterprise != nil {
		doc["schemas"] = []string{schemaUser, schemaEnterprise}
	}
	doc["id"] = g.MemberID
	doc["active"] = g.Status != organization.StatusDeleted
	if groups == nil {
		groups = []groupRef{}
	}
	doc["groups"] = groups
	doc["meta"] = newMeta("User", g.Created, g.Updated, s.location(c, "Users", g.MemberID))
	return doc
}

// resources answers registrations with their groups, read in one query.
func (s *Service) resources(ctx context.Context, q store.Querier, c *conn, gs []*reg) ([]any, error) {
	ids := make([]string, len(gs))
	for i, g := range gs {
		ids[i] = g.MemberID
	}
	groups, err := s.groupsOf(ctx, q, c, ids)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(gs))
	for i, g := range gs {
		out[i] = s.resource(c, g, groups[g.MemberID])
	}
	return out, nil
}

func (s *Service) userAnswer(ctx context.Context, q store.Querier, c *conn, id string, status int) (int, any, error) {
	g, err := s.regOf(ctx, q, c, id)
	if err != nil {
		return 0, nil, err
	}
	res, err := s.resources(ctx, q, c, []*reg{g})
	if err != nil {
		return 0, nil, err
	}
	return status, res[0], nil
}

// scope loads what provisioning writes need: the connection's organization
// and project.
func (s *Service) scope(ctx context.Context, c *conn) (*project.Project, *organization.Organization, error) {
	p, err := s.d.Projects.ByID(ctx, c.ProjectID)
	if err != nil {
		return nil, nil, err
	}
	o, err := s.d.Orgs.Get(ctx, c.ProjectID, c.OrgID)
	if err != nil {
		return nil, nil, err
	}
	return p, o, nil
}

// record writes an audit event for a provisioning change, in q.
func (s *Service) record(ctx context.Context, q store.Querier, c *conn, method, memberID string, details map[string]any) error {
	ip, ua := httpapi.Client(ctx) // the User-Agent made storable, not the raw header
	if details == nil {
		details = map[string]any{}
	}
	details["connection_id"] = c.ID
	return s.d.Audit.RecordIn(ctx, q, audit.Event{ProjectID: c.ProjectID, Type: audit.SCIMProvisioning, Method: method,
		OrganizationID: c.OrgID, MemberID: memberID, Actor: "scim", IP: ip, UserAgent: ua,
		RequestID: httpapi.RequestID(ctx), Details: details})
}

func (s *Service) createUser(r *http.Request, c *conn) (int, any, error) {
	ctx := r.Context()
	doc := map[string]any{}
	if err := readJSON(r, &doc); err != nil {
		return 0, nil, err
	}
	u, err := parseUser(doc)
	if err != nil {
		return 0, nil, err
	}
	if err := u.bound(nil); err != nil {
		return 0, nil, err
	}
	email, err := u.email()
	if err != nil {
		return 0, nil, err
	}
	if email == "" {
		return 0, nil, errInvalidValue("The user needs an email address: in emails, or as userName.")
	}
	p, org, err := s.scope(ctx, c)
	if err != nil {
		return 0, nil, err
	}
	var memberID string
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		if err := s.userTaken(ctx, q, c, u.UserName, ""); err != nil {
			return err
		}
		m, err := s.d.Orgs.MemberByEmail(ctx, q, org.OrganizationID, email)
		method := "user_linked"
		if errors.Is(err, store.ErrNotFound) {
			// Provisioned members are active: the identity provider
			// vouches for them (their address is verified at first login).
			// A creation of the address that commits first (a login's JIT
			// signup, an invite) is linked, as it would be after it.
			var created bool
			m, created, err = s.d.Orgs.ProvisionMember(ctx, q, org, p.Env, organization.NewMember{Email: email,
				Name: u.memberName(), Status: organization.StatusActive})
			if created {
				method = "user_created"
			}
		}
		switch {
		case err != nil || method == "user_created":
		case m.SCIMRegistration != nil:
			return errUniqueness("A user with the email " + email + " already exists.")
		case m.IsBreakglass:
			return errUniqueness("The address " + email + " belongs to a break-glass member, whom SCIM provisioning does not manage.")
		case m.Status != organization.StatusActive && (u.Active == nil || bool(*u.Active)):
			// A linked member becomes active like a created one (the
			// identity provider vouches for them): a deleted member is
			// reactivated, an invited or pending one admitted.
			m, err = s.d.Orgs.SetMemberStatus(ctx, q, org, m.MemberID, organization.StatusActive,
				[]string{m.Status}, apierr.New(apierr.MemberNotFound))
		}
		if err != nil {
			return err
		}
		if m.Status != organization.StatusDeleted && u.memberName() != "" && u.memberName() != m.Name {
			n := u.memberName()
			if m, err = s.d.Orgs.UpdateMember(ctx, q, org, p.Env, m.MemberID, organization.MemberUpdate{Name: &n}); err != nil {
				return err
			}
		}
		memberID = m.MemberID
		if err := s.insertReg(ctx, q, c, p.Env, memberID, u, method == "user_linked"); err != nil {
			return err
		}
		if err := s.record(ctx, q, c, method, memberID, nil); err != nil {
			return err
		}
		if m.Status != organization.StatusDeleted && u.Active != nil && !bool(*u.Active) {
			return s.deactivate(ctx, q, r, c, p, org, memberID)
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return s.userAnswer(ctx, s.d.DB.Read(), c, memberID, http.StatusCreated)
}

func (s *Service) insertReg(ctx context.Context, q store.Querier, c *conn, env ids.Env, memberID string, u *user, linked bool) error {
	now := store.Millis(s.d.Clock.Now())
	attrs := mustJSON(u)
	_, err := q.ExecContext(ctx, `INSERT INTO scim_registrations (registration_id, connection_id, organization_id, member_id,
		user_name_key, external_id, attributes, attributes_folded, linked, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		ids.New("scim-registration", env), c.ID, c.OrgID, memberID, fold(u.UserName), u.ExternalID, attrs, foldedAttributes(attrs),
		linked, now, now)
	if errors.Is(store.MapError(err), store.ErrConflict) {
		return errUniqueness("The user is already provisioned.")
	}
	if err != nil {
		return fmt.Errorf("scim: insert registration: %w", err)
	}
	return nil
}

// deactivate deletes a provisioned member through the organization's one
// deletion path, in q: the rest of the push that deactivates them commits
// with the deletion or not at all, so a failed deletion leaves no
// half-written user (changed attributes, a member still active). Their
// sessions end once q commits. Their registration and group memberships
// stay: a deactivated user still exists for the identity provider, which
// may reactivate them.
func (s *Service) deactivate(ctx context.Context, q store.Querier, r *http.Request, c *conn, p *project.Project,
	org *organization.Organization, memberID string) error {
	_, err := s.d.Orgs.DeleteMemberIn(ctx, q, s.d.Members, p, org, memberID, func(q store.Querier, m *organization.Member) error {
		return s.record(ctx, q, c, "user_deactivated", memberID, nil)
	})
	return err
}

func (s *Service) getUser(r *http.Request, c *conn) (int, any, error) {
	return s.userAnswer(r.Context(), s.d.DB.Read(), c, r.PathValue("id"), http.StatusOK)
}

func (s *Service) listUsers(r *http.Request, c *conn) (int, any, error) {
	ctx, q := r.Context(), s.d.DB.Read()
	start, count, err := paging(r)
	if err != nil {
		return 0, nil, err
	}
	d := s.d.DB.Dialect()
	where, args, err := userFilter(d, r.URL.Query().Get("filter"))
	if err != nil {
		return 0, nil, err
	}
	order, err := orderBy(r, d, userSortKeys, urnUser, "r.created_at", "r.member_id")
	if err != nil {
		return 0, nil, err
	}
	args = append([]any{c.ID}, args...)
	cond := ` WHERE r.connection_id = $1` + where
	var total int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM scim_registrations r JOIN members m ON m.member_id = r.member_id`+cond,
		args...).Scan(&total); err != nil {
		return 0, nil, fmt.Errorf("scim: count users: %w", err)
	}
	rows, err := q.QueryContext(ctx, regSelect+cond+order+fmt.Sprintf(` LIMIT %d OFFSET %d`, count, start-1), args...)
	if err != nil {
		return 0, nil, fmt.Errorf("scim: list users: %w", err)
	}
	var gs []*reg
	for rows.Next() {
		g, err := scanReg(rows)
		if err != nil {
			rows.Close()
			return 0, nil, err
		}
		gs = append(gs, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, nil, err
	}
	res, err := s.resources(ctx, q, c, gs)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, listResponse{Schemas: []string{schemaList}, TotalResults: total, StartIndex: start,
		ItemsPerPage: len(res), Resources: res}, nil
}

func (s *Service) replaceUser(r *http.Request, c *conn) (int, any, error) {
	doc := map[string]any{}
	if err := readJSON(r, &doc); err != nil {
		return 0, nil, err
	}
	u, err := parseUser(doc)
	if err != nil {
		return 0, nil, err
	}
	return s.updateUser(r, c, r.PathValue("id"), func(*reg) (*user, error) { return u, nil })
}

// patchUser applies a PATCH. Its operations are checked first
// (compilePatch), and applied to the registration as read before the
// transaction, so the database's writer is not held while a document is
// patched; inside, the result is used when the registration is still as
// read, and the operations are applied again to it otherwise.
func (s *Service) patchUser(r *http.Request, c *conn) (int, any, error) {
	var req patchRequest
	if err := readJSON(r, &req); err != nil {
		return 0, nil, err
	}
	steps, err := compilePatch(req.Operations)
	if err != nil {
		return 0, nil, err
	}
	id := r.PathValue("id")
	// An error here (no such user) is the transaction's to report.
	pre, _ := s.regOf(r.Context(), s.d.DB.Read(), c, id)
	var early patched
	if pre != nil {
		early = patchReg(pre, steps)
	}
	return s.updateUser(r, c, id, func(g *reg) (*user, error) {
		res := early
		if pre == nil || !sameState(pre, g) {
			res = patchReg(g, steps)
		}
		return res.user()
	})
}

// patched is a registration's document after a PATCH, as JSON, or the
// error applying it gave. It is decoded anew for each use (user), as
// updateUser changes the user it gets and a transaction may be run again.
type patched struct {
	raw []byte
	err error
}

func (p patched) user() (*user, error) {
	if p.err != nil {
		return nil, p.err
	}
	return decodeUser(p.raw)
}

// patchReg applies steps to g's attributes and active state.
func patchReg(g *reg, steps []patchStep) patched {
	doc := foldKeys(g.Attrs.toDoc()).(map[string]any)
	doc[foldKey("active")] = g.Status != organization.StatusDeleted
	if err := applyPatch(doc, steps); err != nil {
		return patched{err: err}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return patched{err: errInvalidSyntax("The user could not be read.")}
	}
	return patched{raw: raw}
}

// sameState reports whether b has what a PATCH of a reads (patchReg): the
// attributes and the status.
func sameState(a, b *reg) bool {
	return a.Status == b.Status && reflect.DeepEqual(a.Attrs, b.Attrs)
}

// updateUser applies the user next builds from the registration as read:
// the member's name and address follow it, active deletes or reactivates
// the member, and the attributes are stored.
func (s *Service) updateUser(r *http.Request, c *conn, id string, next func(*reg) (*user, error)) (int, any, error) {
	ctx := r.Context()
	p, org, err := s.scope(ctx, c)
	if err != nil {
		return 0, nil, err
	}
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		g, err := s.regForUpdate(ctx, q, c, id)
		if err != nil {
			return err
		}
		if err := refuseBreakglass(g.Breakglass, g.Email); err != nil {
			return err
		}
		u, err := next(g)
		if err != nil {
			return err
		}
		if err := u.bound(&g.Attrs); err != nil {
			return err
		}
		// A deprovisioning is never refused over the rest of the push (a
		// leaver must not stay active): what would refuse it keeps its
		// stored value instead. The userName another user has is not
		// written, so the unique index is not hit either.
		off := u.deprovisions()
		if err := s.userTaken(ctx, q, c, u.UserName, id); err != nil {
			if se := (*scimError)(nil); !off || !errors.As(err, &se) || se.scimType != "uniqueness" {
				return err
			}
			u.UserName = g.Attrs.UserName
		}
		email, err := u.email()
		if err != nil {
			if !off {
				return err
			}
			u.Emails = g.Attrs.Emails
		}
		if off {
			// The member is deleted as they are, and a new address waits
			// for the identity provider to send it again. The stored
			// attributes keep naming the address they did (the emails,
			// or the userName it came from): stored, the new one would
			// count as already sent (addressChange), and the later push
			// would not move the member to it.
			if addressChange(g, email) {
				u.Emails = g.Attrs.Emails
				if e, _ := u.email(); addressChange(g, e) {
					u.UserName = g.Attrs.UserName
				}
			}
			email = ""
		}
		if err := refuseAddressChange(g, email); err != nil {
			return err
		}
		deleted := g.Status == organization.StatusDeleted
		if g.Status != organization.StatusActive && u.Active != nil && bool(*u.Active) {
			// Reactivated when deleted; admitted when invited or pending
			// (a member re-invited after SCIM linked them): the identity
			// provider holds the user active.
			if _, err := s.d.Orgs.SetMemberStatus(ctx, q, org, id, organization.StatusActive,
				[]string{g.Status}, apierr.New(apierr.MemberNotFound)); err != nil {
				return err
			}
			method := "user_activated"
			if deleted {
				method = "user_reactivated"
			}
			deleted = false
			if err := s.record(ctx, q, c, method, id, nil); err != nil {
				return err
			}
		}
		if !deleted {
			var upd organization.MemberUpdate
			if n := u.memberName(); n != "" && n != g.Name {
				upd.Name = &n
			}
			if addressChange(g, email) {
				upd.EmailAddress = &email
			}
			if upd.Name != nil || upd.EmailAddress != nil {
				if _, err := s.d.Orgs.UpdateMember(ctx, q, org, p.Env, id, upd); err != nil {
					return err
				}
			}
		}
		u.Active = nil // the member's status is the truth
		attrs := mustJSON(u)
		_, err = q.ExecContext(ctx, `UPDATE scim_registrations SET user_name_key = $1, external_id = $2, attributes = $3,
			attributes_folded = $4, updated_at = $5 WHERE registration_id = $6`, fold(u.UserName), u.ExternalID, attrs,
			foldedAttributes(attrs), store.Millis(s.d.Clock.Now()), g.ID)
		if errors.Is(store.MapError(err), store.ErrConflict) {
			// Another user took the userName after userTaken looked (a
			// concurrent rename or create): the same answer as its check.
			return errUniqueness("A user with userName " + u.UserName + " already exists.")
		}
		if err != nil {
			return fmt.Errorf("scim: update registration: %w", err)
		}
		if err := s.record(ctx, q, c, "user_updated", id, nil); err != nil {
			return err
		}
		if off && !deleted {
			return s.deactivate(ctx, q, r, c, p, org, id)
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return s.userAnswer(ctx, s.d.DB.Read(), c, id, http.StatusOK)
}

// deleteUser deprovisions: the member is deleted (sessions end), and their
// registration and group memberships go, so the identity provider may
// provision the address again later.
func (s *Service) deleteUser(r *http.Request, c *conn) (int, any, error) {
	ctx := r.Context()
	id := r.PathValue("id")
	g, err := s.regOf(ctx, s.d.DB.Read(), c, id)
	if err != nil {
		return 0, nil, err
	}
	if err := refuseBreakglass(g.Breakglass, g.Email); err != nil {
		return 0, nil, err
	}
	p, org, err := s.scope(ctx, c)
	if err != nil {
		return 0, nil, err
	}
	_, err = s.d.Orgs.DeleteMember(ctx, s.d.Members, p, org, id, func(q store.Querier, m *organization.Member) error {
		if err := refuseBreakglass(m.IsBreakglass, m.EmailAddress); err != nil {
			return err // marked break-glass since the read above
		}
		// The registration goes before the memberships. A group add locks
		// the registration (FOR SHARE, setMembers) before it inserts: one
		// that got there first has committed its membership by the time
		// this DELETE has the row, and the next statement sees and deletes
		// it; one that comes after waits here and then finds no user.
		if _, err := q.ExecContext(ctx, `DELETE FROM scim_registrations WHERE connection_id = $1 AND member_id = $2`, c.ID, id); err != nil {
			return fmt.Errorf("scim: delete registration: %w", err)
		}
		if _, err := q.ExecContext(ctx, `DELETE FROM scim_group_members WHERE member_id = $1
			AND group_id IN (SELECT group_id FROM scim_groups WHERE connection_id = $2)`, id, c.ID); err != nil {
			return fmt.Errorf("scim: delete user groups: %w", err)
		}
		return s.record(ctx, q, c, "user_deleted", id, nil)
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}
