package app

import (
	"context"
	"strings"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/scim"
	"github.com/latchkey/latchkey/internal/store"
)

// coreWatches are the core tables that cached answers are built from:
// the session check's session, member and organization (hot cache in
// internal/session) and the project credentials, origins and signing keys
// every request resolves (internal/project, the session JWT keys).
//
// A table belongs here (or in a module's Watches) when a change to one of
// its rows must change a cached answer; forgetting one means stale answers
// until the caches' one-minute backstop.
func coreWatches() []changefeed.Watch {
	// lineage_id is set once, at insert, by the service; it is watched
	// all the same because the hot cache holds it.
	sessionCols := []string{"revoked_at", "expires_at", "authentication_factors", "member_id", "organization_id",
		"project_id", "token_hash", "custom_claims", "lineage_id"}
	return []changefeed.Watch{
		// last_accessed_at is written in the background and is not among
		// the columns, so touches record nothing; new sessions cannot be
		// cached before they exist.
		{Table: "member_sessions", KeyColumn: "member_session_id", Scope: changefeed.Session, Columns: sessionCols, NoInsert: true},
		{Table: "members", KeyColumn: "member_id", Scope: changefeed.Member, NoInsert: true},
		{Table: "member_retired_emails", KeyColumn: "member_id", Scope: changefeed.Member},
		// A member's member_password_id is derived from the project's
		// password for the address.
		{Table: "member_passwords", KeyColumn: "project_id", Scope: changefeed.Project},
		{Table: "organizations", KeyColumn: "organization_id", Scope: changefeed.Organization, NoInsert: true},
		{Table: "projects", KeyColumn: "project_id", Scope: changefeed.Project, NoInsert: true},
		{Table: "project_public_tokens", KeyColumn: "project_id", Scope: changefeed.Project},
		{Table: "project_secrets", KeyColumn: "project_id", Scope: changefeed.Project},
		{Table: "project_origins", KeyColumn: "project_id", Scope: changefeed.Project},
		{Table: project.SigningKeyColumn.Table, KeyColumn: "project_id", Scope: changefeed.Project},
	}
}

// Watches lists every watched table: the core's and the modules'.
func Watches() []changefeed.Watch {
	return append(coreWatches(), moduleWatches()...)
}

// MigrateDB applies every migration (core and modules), fills the
// columns a migration added that only Go can compute (organization name
// folding, SCIM attribute and group name folding), and installs the
// change-feed triggers on the watched tables.
// App.New, NewWithDB and `latchkey migrate` use it, so a database is never
// used without its triggers.
func MigrateDB(ctx context.Context, db *store.DB) error {
	if err := db.Migrate(ctx, Migrations()...); err != nil {
		return err
	}
	if _, err := organization.FoldNames(ctx, db); err != nil {
		return err
	}
	if _, err := scim.FoldAttributes(ctx, db); err != nil {
		return err
	}
	if _, err := scim.FoldGroupNames(ctx, db); err != nil {
		return err
	}
	// The triggers are recorded with how new this binary is, so an older
	// replica restarting during a rolling deploy keeps a newer one's.
	level, err := db.KnownMigrations(Migrations()...)
	if err != nil {
		return err
	}
	return changefeed.Install(ctx, db, level, Watches())
}

// NewerSchemaWarning names the migrations recorded in db that this binary
// does not have, or is "" when there are none. A newer release migrated
// the database: this one runs on it (a rolling deploy runs old binaries
// on the new schema until they are replaced), but the operator should
// know, since a rollback past those migrations is not what it seems.
func NewerSchemaWarning(ctx context.Context, db *store.DB) (string, error) {
	unknown, err := db.UnknownVersions(ctx, Migrations()...)
	if err != nil || len(unknown) == 0 {
		return "", err
	}
	return "this database was migrated by a newer release: it has migrations this binary does not know (" +
		strings.Join(unknown, ", ") + ")", nil
}

// Start runs the background loops until ctx ends: the change-feed poll
// (other processes' changes reach this one's caches), the coalesced
// last_accessed_at writes, the email outbox delivery and the check of the
// change-feed triggers (TriggerGuard). A server calls it
// once; tests that never call it still get fresh caches (the feed syncs on
// the request path when it is stale).
func (a *App) Start(ctx context.Context) {
	ctx, a.stop = context.WithCancel(ctx)
	a.loops.Add(2)
	go func() { defer a.loops.Done(); a.Feed.Run(ctx) }()
	go func() {
		defer a.loops.Done()
		a.Sessions.RunToucher(ctx, func(err error) { a.Log.Warn("last_accessed_at flush failed", "error", err) })
	}()
	if a.MailQueue != nil {
		a.loops.Add(1)
		go func() { defer a.loops.Done(); a.MailQueue.Run(ctx) }()
	}
	if g, err := a.TriggerGuard(); err != nil {
		a.Log.Warn("change feed: the installed triggers will not be checked", "error", err)
	} else {
		a.loops.Add(1)
		go func() { defer a.loops.Done(); g.Run(ctx) }()
	}
}

// TriggerGuard is the check Start runs every changefeed.GuardInterval:
// it puts this binary's change-feed triggers back when a replica of a
// release from before store migration 0114 restarted and narrowed them.
func (a *App) TriggerGuard() (*changefeed.Guard, error) {
	level, err := a.DB.KnownMigrations(Migrations()...)
	if err != nil {
		return nil, err
	}
	return changefeed.NewGuard(a.DB, level, Watches(), a.Log)
}
