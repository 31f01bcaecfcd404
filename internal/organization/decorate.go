package organization

import (
	"context"
	"fmt"
	"strings"

	"github.com/latchkey/latchkey/internal/store"
)

// MemberDecorator fills member fields owned by a module (oauth_registrations,
// scim_registration) on members loaded through q, in one query for the
// lot. byID holds the loaded members by member_id.
type MemberDecorator func(ctx context.Context, q store.Querier, byID map[string]*Member) error

// memberDecorator is a decorator with the table its fields come from.
type memberDecorator struct {
	table string // "" when not one member-keyed table: always run
	run   MemberDecorator
}

// AddMemberDecorator installs a decorator whose fields come from rows of
// table, keyed by its member_id column. decorate runs it only when table
// has a row for one of the members loaded (see probe), so d must leave a
// member with no row in table as it was loaded. Pass "" for a decorator
// that reads anything else, which then runs on every load. Modules call it
// at wiring time, before the server answers requests.
func (s *Store) AddMemberDecorator(table string, d MemberDecorator) {
	s.addMemberTable(table)
	s.decorators = append(s.decorators, memberDecorator{table: table, run: d})
}

// retiredTable is what withRetired reads.
const retiredTable = "member_retired_emails"

// decorate completes members loaded through q: their retired addresses,
// every module's fields, then their roles from the implicit role sources.
// Every path that returns members ends here, so a member reads the same
// whichever route loaded it. Each of these loaders reads rows of one
// member-keyed table, and most members have none in any of them: one
// probe first finds which tables hold rows for the batch, and only their
// loaders run.
func (s *Store) decorate(ctx context.Context, q store.Querier, ms ...*Member) error {
	if len(ms) == 0 {
		return nil
	}
	has, err := s.probe(ctx, q, ms)
	if err != nil {
		return err
	}
	if has(retiredTable) {
		if err := s.withRetired(ctx, q, ms...); err != nil {
			return err
		}
	}
	if err := s.runDecorators(ctx, q, has, ms); err != nil {
		return err
	}
	return s.withImplicitRoles(ctx, q, has, ms...)
}

func (s *Store) runDecorators(ctx context.Context, q store.Querier, has func(table string) bool, ms []*Member) error {
	var byID map[string]*Member
	for _, d := range s.decorators {
		if !has(d.table) {
			continue
		}
		if byID == nil {
			byID = make(map[string]*Member, len(ms))
			for _, m := range ms {
				byID[m.MemberID] = m
			}
		}
		if err := d.run(ctx, q, byID); err != nil {
			return fmt.Errorf("organization: decorate members: %w", err)
		}
	}
	return nil
}

// addMemberTable records a table a member loader reads, for the probe; ""
// (a loader that always runs) adds none. The name is spliced into SQL, so
// only a plain identifier is taken (a wiring mistake, hence the panic).
func (s *Store) addMemberTable(table string) {
	if table == "" {
		return
	}
	if strings.Trim(table, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		panic("organization: member table " + table + " is not a plain identifier")
	}
	s.loaders++
	for _, t := range s.memberTables {
		if t == table {
			return
		}
	}
	s.memberTables = append(s.memberTables, table)
}

// anyTable is the answer of no probe: every loader runs.
func anyTable(string) bool { return true }

// probe asks, in one statement, which of the member tables hold a row for
// one of ms, and returns the answer as has: has("") is always true (a
// loader that declares no table always runs). With fewer than two loaders
// to skip the probe would cost as much as it saves, so it is not run and
// has answers true for everything.
//
// The statement's text depends only on the registered tables and
// len(ms), so SQLite keeps it prepared (store's statement cache). The
// same $1..$n stand in every EXISTS: PostgreSQL reuses numbered
// parameters, and SQLite binds every occurrence of a name ("$1") to one
// parameter.
func (s *Store) probe(ctx context.Context, q store.Querier, ms []*Member) (func(table string) bool, error) {
	if s.loaders < 2 {
		return anyTable, nil
	}
	in := store.Placeholders(1, len(ms))
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, t := range s.memberTables {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("EXISTS (SELECT 1 FROM " + t + " WHERE member_id IN (" + in + "))")
	}
	args := make([]any, len(ms))
	for i, m := range ms {
		args[i] = m.MemberID
	}
	found := make([]bool, len(s.memberTables))
	dst := make([]any, len(found))
	for i := range found {
		dst[i] = &found[i]
	}
	if err := q.QueryRowContext(ctx, b.String(), args...).Scan(dst...); err != nil {
		return nil, fmt.Errorf("organization: probe member tables: %w", err)
	}
	return func(table string) bool {
		if table == "" {
			return true
		}
		for i, t := range s.memberTables {
			if t == table {
				return found[i]
			}
		}
		return true
	}, nil
}
