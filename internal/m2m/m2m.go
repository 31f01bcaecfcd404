// Package m2m is the registry of machine-to-machine clients: services that
// authenticate with a client id and secret and receive scoped access
// tokens from the identity provider's client_credentials grant.
package m2m

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/clientsecret"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/displaytext"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/metadata"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// Client statuses.
const (
	Active   = "active"
	Inactive = "inactive"
)

// Client is an M2M client as stored.
type Client struct {
	ProjectID         string
	ClientID          string
	ClientName        string
	ClientDescription string
	Status            string
	Scopes            []string
	TrustedMetadata   map[string]any
	Secret            clientsecret.Pair
	// SecretChosen is whether the current secret was chosen by the
	// customer (create's client_secret), not generated: a chosen one may
	// be guessable, so the token endpoint guards it more strictly. A
	// completed rotation's secret is always generated.
	SecretChosen bool
	CreatedAt    time.Time
}

// Store reads and writes M2M clients.
type Store struct {
	db    *store.DB
	clock clock.Clock
	audit audit.InTx
}

// NewStore returns a store on db.
func NewStore(db *store.DB, c clock.Clock) *Store { return &Store{db: db, clock: c} }

// UseAudit has the clients' secret changes (create, rotation steps,
// delete) recorded in a, each in the transaction that makes it. The
// composition root calls it once, before serving; without it nothing is
// recorded.
func (s *Store) UseAudit(a audit.InTx) { s.audit = a }

// record files a change of c's secrets in q.
func (s *Store) record(ctx context.Context, q store.Querier, projectID, clientID, change string) error {
	return clientsecret.Record(ctx, q, s.audit, clientsecret.Change{ProjectID: projectID, ClientType: "m2m_client",
		ClientID: clientID, Change: change})
}

const columns = `client_id, project_id, client_name, client_description, status, scopes, trusted_metadata,
	secret_hash, secret_last_four, next_secret_hash, next_secret_last_four, secret_chosen, created_at`

func scan(s interface{ Scan(...any) error }) (*Client, error) {
	var c Client
	var scopes, meta string
	var created int64
	if err := s.Scan(&c.ClientID, &c.ProjectID, &c.ClientName, &c.ClientDescription, &c.Status, &scopes, &meta,
		&c.Secret.Hash, &c.Secret.LastFour, &c.Secret.NextHash, &c.Secret.NextLastFour, &c.SecretChosen, &created); err != nil {
		return nil, store.MapError(err)
	}
	if err := errors.Join(json.Unmarshal([]byte(scopes), &c.Scopes), json.Unmarshal([]byte(meta), &c.TrustedMetadata)); err != nil {
		return nil, fmt.Errorf("m2m: decode %s: %w", c.ClientID, err)
	}
	c.CreatedAt = store.Time(created)
	return &c, nil
}

// Fields are the settable fields of create and update (nil: not given).
type Fields struct {
	ClientName        *string         `json:"client_name"`
	ClientDescription *string         `json:"client_description"`
	Status            *string         `json:"status"`
	Scopes            *[]string       `json:"scopes"`
	TrustedMetadata   *map[string]any `json:"trusted_metadata"`
}

// MaxScopes bounds a client's scopes (the vendor states no limit): every
// access token the client is issued lists them, and a list far past any
// API's permissions only costs the write and each token.
const MaxScopes = 100

// Bounds of a client's name and description, in characters (the vendor
// states none): as a member's name, and room for a paragraph. Both are
// answered on every read and search of the client, and shown in whatever
// lists the clients.
const (
	MaxClientName        = 256
	MaxClientDescription = 1024
)

func (f Fields) apply(c *Client) error {
	if f.ClientName != nil {
		name, err := checkName(*f.ClientName)
		if err != nil {
			return err
		}
		c.ClientName = name
	}
	if f.ClientDescription != nil {
		d, err := checkDescription(*f.ClientDescription)
		if err != nil {
			return err
		}
		c.ClientDescription = d
	}
	if f.Status != nil {
		if *f.Status != Active && *f.Status != Inactive {
			return apierr.New(apierr.InvalidM2MClientStatus)
		}
		c.Status = *f.Status
	}
	if f.TrustedMetadata != nil {
		// The API family's metadata rule (the client docs point to it):
		// merged at the top level, null deletes a key, within the limits.
		// A creation starts from the empty object.
		md, err := metadata.Merge("trusted_metadata", c.TrustedMetadata, *f.TrustedMetadata)
		if err != nil {
			return err
		}
		c.TrustedMetadata = md
	}
	if f.Scopes != nil {
		if len(*f.Scopes) > MaxScopes {
			return apierr.Invalid("scopes", fmt.Sprintf("scopes may list at most %d scopes.", MaxScopes))
		}
		scopes := []string{}
		seen := map[string]bool{}
		for _, s := range *f.Scopes {
			if s == "" || strings.ContainsAny(s, " \t\n\"\\") {
				return apierr.New(apierr.InvalidM2MClientScope)
			}
			if !seen[s] {
				seen[s] = true
				scopes = append(scopes, s)
			}
		}
		c.Scopes = scopes
	}
	return nil
}

// checkName trims a client_name and refuses one over MaxClientName
// characters, or holding control or bidirectional formatting characters,
// as every name someone else reads is refused (displaytext): an escape
// sequence or a line break in it rewrites a terminal or a log line that
// shows it. A name with nothing visible is blank.
func checkName(v string) (string, error) {
	v, why := displaytext.Line("client_name", v, MaxClientName)
	if why != "" {
		return "", apierr.Invalid("client_name", why)
	}
	return v, nil
}

// checkDescription trims a client_description and refuses one over
// MaxClientDescription characters, or holding what a text of several lines
// may not (displaytext.ForbiddenInText): line breaks and tabs stay.
func checkDescription(v string) (string, error) {
	v, why := displaytext.Text("client_description", v, MaxClientDescription)
	if why != "" {
		return "", apierr.Invalid("client_description", why)
	}
	return v, nil
}

// Create registers a client; a generated secret is returned once. The
// caller may choose the client id and secret (for migrations); a chosen
// secret must be hard to guess (checkChosenSecret).
func (s *Store) Create(ctx context.Context, projectID string, env ids.Env, clientID, secret string, f Fields) (*Client, string, error) {
	if f.Scopes == nil {
		return nil, "", apierr.Invalid("scopes", "scopes is required.")
	}
	c := &Client{ProjectID: projectID, ClientID: clientID, Status: Active, TrustedMetadata: map[string]any{}, CreatedAt: s.clock.Now()}
	if c.ClientID == "" {
		c.ClientID = ids.New("m2m-client", env)
	} else if err := checkChosenID(c.ClientID); err != nil {
		return nil, "", err
	}
	if err := f.apply(c); err != nil {
		return nil, "", err
	}
	if secret == "" {
		secret, c.Secret = clientsecret.New()
	} else {
		if err := checkChosenSecret(secret, c); err != nil {
			return nil, "", err
		}
		c.Secret, c.SecretChosen = clientsecret.FromPlain(secret), true
	}
	now := store.Millis(c.CreatedAt)
	err := s.db.Tx(ctx, func(q store.Querier) error {
		_, err := q.ExecContext(ctx, `INSERT INTO m2m_clients (`+columns+`, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$13)`,
			c.ClientID, projectID, c.ClientName, c.ClientDescription, c.Status, jsonText(c.Scopes), jsonText(c.TrustedMetadata),
			c.Secret.Hash, c.Secret.LastFour, c.Secret.NextHash, c.Secret.NextLastFour, c.SecretChosen, now)
		if err = store.MapError(err); errors.Is(err, store.ErrConflict) {
			return apierr.Wrap(apierr.DuplicateM2MClientID, err)
		}
		if err != nil {
			return fmt.Errorf("m2m: create: %w", err)
		}
		return s.record(ctx, q, projectID, c.ClientID, clientsecret.Created)
	})
	if err != nil {
		return nil, "", err
	}
	return c, secret, nil
}

// maxChosenID bounds a chosen client_id, as the project's other chosen
// identifiers (external ids, slugs, role ids) are bounded.
const maxChosenID = 128

// checkChosenID refuses a chosen client_id that is not 1 to 128 URL
// unreserved characters (ids.Unreserved), or is "." or "..". The id is a
// path segment of every management route (/v1/m2m/clients/{client_id}),
// which the router cleans, so "." or ".." would make a client that no
// route reaches again while its token endpoint still issues tokens; and it
// is echoed in logs, the audit log and token claims, where whitespace,
// controls or bidirectional formatting would mislead whoever reads them.
// Nor may it take the form of a member's, user's or organization's id
// (subjectKinds).
func checkChosenID(id string) error {
	if len(id) > maxChosenID || !ids.Unreserved(id) || id == "." || id == ".." {
		return apierr.Invalid("client_id", fmt.Sprintf(
			`A chosen client_id must be 1 to %d of the characters A-Z, a-z, 0-9, "-", ".", "_" and "~", and not "." or "..".`, maxChosenID))
	}
	for _, kind := range subjectKinds {
		if len(id) >= len(kind)+1 && strings.EqualFold(id[:len(kind)+1], kind+"-") {
			return apierr.Invalid("client_id", fmt.Sprintf(
				`A chosen client_id may not begin with "%s-": ids of that form name members, users and organizations.`, kind))
		}
	}
	return nil
}

// subjectKinds are the ids.New kinds whose ids name a person or an
// organization in a token's sub: a member's id is the sub of a connected
// app's tokens, and the vendor's consumer users and organizations are
// spelled the same way. An M2M client's id is the sub of its access
// tokens, so a chosen id of one of these forms would have a resource
// server keyed on sub take a machine for a person (even a real member,
// whose id an operator can read). The prefix is refused whatever follows
// and in any case, since a resource server's store may compare without
// case; a generated id is m2m-client-..., never one of these.
var subjectKinds = []string{"member", "user", "organization"}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }

// Get loads a client of the project.
func (s *Store) Get(ctx context.Context, projectID, clientID string) (*Client, error) {
	return s.get(ctx, s.db.Read(), projectID, clientID)
}

func (s *Store) get(ctx context.Context, q store.Querier, projectID, clientID string) (*Client, error) {
	return s.read(ctx, q, projectID, clientID, "")
}

// getForUpdate is get for a change written back from the read (every
// writer of a client: save writes all mutable columns as read). The row
// is held until q ends: on PostgreSQL (READ COMMITTED) a plain read would
// not wait for a concurrent change, and saving would put back what that
// change replaced (a deactivation, a completed rotation). The lock is
// FOR NO KEY UPDATE, the one save's UPDATE takes (as store.DB.LockRow;
// taken in the read itself since the key is project and client id).
// SQLite has one writer: a read inside the write transaction is current.
func (s *Store) getForUpdate(ctx context.Context, q store.Querier, projectID, clientID string) (*Client, error) {
	lock := ""
	if s.db.Dialect() == store.Postgres {
		lock = ` FOR NO KEY UPDATE`
	}
	return s.read(ctx, q, projectID, clientID, lock)
}

func (s *Store) read(ctx context.Context, q store.Querier, projectID, clientID, lock string) (*Client, error) {
	c, err := scan(q.QueryRowContext(ctx, `SELECT `+columns+` FROM m2m_clients WHERE project_id = $1 AND client_id = $2`+lock,
		projectID, clientID))
	if err != nil {
		return nil, fmt.Errorf("m2m: get %s: %w", clientID, err)
	}
	return c, nil
}

// save writes every mutable column of c, read by getForUpdate in q.
func (s *Store) save(ctx context.Context, q store.Querier, c *Client) error {
	_, err := q.ExecContext(ctx, `UPDATE m2m_clients SET client_name = $3, client_description = $4, status = $5, scopes = $6,
		trusted_metadata = $7, secret_hash = $8, secret_last_four = $9, next_secret_hash = $10, next_secret_last_four = $11,
		secret_chosen = $12, updated_at = $13 WHERE project_id = $1 AND client_id = $2`,
		c.ProjectID, c.ClientID, c.ClientName, c.ClientDescription, c.Status, jsonText(c.Scopes), jsonText(c.TrustedMetadata),
		c.Secret.Hash, c.Secret.LastFour, c.Secret.NextHash, c.Secret.NextLastFour, c.SecretChosen, store.Millis(s.clock.Now()))
	if err != nil {
		return fmt.Errorf("m2m: save %s: %w", c.ClientID, err)
	}
	return nil
}

// Update changes the given fields.
func (s *Store) Update(ctx context.Context, projectID, clientID string, f Fields) (*Client, error) {
	var out *Client
	err := s.db.Tx(ctx, func(q store.Querier) error {
		c, err := s.getForUpdate(ctx, q, projectID, clientID)
		if err != nil {
			return err
		}
		if err := f.apply(c); err != nil {
			return err
		}
		out = c
		return s.save(ctx, q, c)
	})
	return out, err
}

// Delete removes a client.
func (s *Store) Delete(ctx context.Context, projectID, clientID string) error {
	return s.db.Tx(ctx, func(q store.Querier) error {
		res, err := q.ExecContext(ctx, `DELETE FROM m2m_clients WHERE project_id = $1 AND client_id = $2`, projectID, clientID)
		if err != nil {
			return fmt.Errorf("m2m: delete: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("m2m: delete %s: %w", clientID, store.ErrNotFound)
		}
		return s.record(ctx, q, projectID, clientID, clientsecret.Deleted)
	})
}

// Rotate runs one rotation step ("start", "complete", "cancel"); start
// returns the next secret.
func (s *Store) Rotate(ctx context.Context, projectID, clientID, step string) (*Client, string, error) {
	var out *Client
	var next string
	err := s.db.Tx(ctx, func(q store.Querier) error {
		c, err := s.getForUpdate(ctx, q, projectID, clientID)
		if err != nil {
			return err
		}
		refuse := clientsecret.Refusals{AlreadyRotating: apierr.M2MClientAlreadyRotatingSecret,
			NotRotating: apierr.M2MClientNotRotatingSecret}
		if next, err = c.Secret.Rotate(step, refuse); err != nil {
			return err
		}
		if step == clientsecret.StepComplete {
			c.SecretChosen = false // the next secret, generated by start, is now the current one
		}
		out = c
		if err := s.save(ctx, q, c); err != nil {
			return err
		}
		return s.record(ctx, q, projectID, clientID, clientsecret.StepChange(step))
	})
	return out, next, err
}

// ProjectCounts reports the project's M2M clients, active or not
// (project.Counter, for project.metrics).
func (s *Store) ProjectCounts(ctx context.Context, projectID string) ([]project.Metric, error) {
	var n int
	if err := s.db.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM m2m_clients WHERE project_id = $1`, projectID).Scan(&n); err != nil {
		return nil, fmt.Errorf("m2m: count clients: %w", err)
	}
	return []project.Metric{{MetricType: "M2M_CLIENT_COUNT", Count: n}}, nil
}
