package project

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/store"
)

// RedirectURL is one registered redirect URL of one type. Default marks
// the URL a flow of that type uses when its request names none.
type RedirectURL struct {
	URL     string       `json:"url"`
	Type    RedirectType `json:"type"`
	Default bool         `json:"default"`
}

// RedirectURLs lists a project's redirect URLs by type (in RedirectTypes
// order), oldest first within a type.
func (s *Store) RedirectURLs(ctx context.Context, projectID string) ([]RedirectURL, error) {
	rows, err := s.db.Read().QueryContext(ctx, `SELECT url, redirect_type, is_default FROM project_redirect_urls
		WHERE project_id = $1 ORDER BY created_at, url`, projectID)
	if err != nil {
		return nil, fmt.Errorf("project: redirect urls: %w", err)
	}
	defer rows.Close()
	var out []RedirectURL
	for rows.Next() {
		var r RedirectURL
		if err := rows.Scan(&r.URL, &r.Type, &r.Default); err != nil {
			return nil, fmt.Errorf("project: scan redirect url: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("project: redirect urls: %w", err)
	}
	slices.SortStableFunc(out, func(a, b RedirectURL) int {
		return slices.Index(RedirectTypes, a.Type) - slices.Index(RedirectTypes, b.Type)
	})
	return out, nil
}

// AddRedirectURLAsDefault registers u for the given types (all types when
// empty) and makes it their default, in one transaction (also runs there,
// with the project id). Registering an already registered URL only changes
// the default.
func (s *Store) AddRedirectURLAsDefault(ctx context.Context, projectID, u string, types []RedirectType, also ...Also) error {
	if err := ValidateRedirectURL(u); err != nil {
		return err
	}
	types, err := checkTypes(types, RedirectTypes)
	if err != nil {
		return err
	}
	return s.db.Tx(ctx, func(q store.Querier) error {
		if err := addRedirectURL(ctx, q, projectID, u, types, store.Millis(s.clock.Now())); err != nil {
			return err
		}
		if err := setDefaultRedirectURL(ctx, q, projectID, u, types); err != nil {
			return err
		}
		return runAlso(q, projectID, also)
	})
}

// SetDefaultRedirectURL makes the registered URL u the default of the
// given types (when empty, of every type it is registered for).
func (s *Store) SetDefaultRedirectURL(ctx context.Context, projectID, u string, types []RedirectType) error {
	return s.db.Tx(ctx, func(q store.Querier) error {
		types, err := registeredTypes(ctx, q, projectID, u, types)
		if err != nil {
			return err
		}
		return setDefaultRedirectURL(ctx, q, projectID, u, types)
	})
}

// RemoveRedirectURL removes u from the given types (when empty, from every
// type it is registered for). A type whose default it was gets its oldest
// remaining URL as the default, so the choice never falls to whatever a
// query happens to return first. also runs in the same transaction.
func (s *Store) RemoveRedirectURL(ctx context.Context, projectID, u string, types []RedirectType, also ...Also) error {
	return s.db.Tx(ctx, func(q store.Querier) error {
		types, err := registeredTypes(ctx, q, projectID, u, types)
		if err != nil {
			return err
		}
		for _, t := range types {
			if _, err := q.ExecContext(ctx, `DELETE FROM project_redirect_urls WHERE project_id = $1 AND redirect_type = $2 AND url = $3`,
				projectID, string(t), u); err != nil {
				return fmt.Errorf("project: remove redirect url: %w", err)
			}
			if _, err := q.ExecContext(ctx, `UPDATE project_redirect_urls SET is_default = TRUE
				WHERE project_id = $1 AND redirect_type = $2
				AND url = (SELECT url FROM project_redirect_urls WHERE project_id = $1 AND redirect_type = $2 ORDER BY created_at, url LIMIT 1)
				AND NOT EXISTS (SELECT 1 FROM project_redirect_urls WHERE project_id = $1 AND redirect_type = $2 AND is_default)`,
				projectID, string(t)); err != nil {
				return fmt.Errorf("project: promote default redirect url: %w", err)
			}
		}
		return runAlso(q, projectID, also)
	})
}

func setDefaultRedirectURL(ctx context.Context, q store.Querier, projectID, u string, types []RedirectType) error {
	for _, t := range types {
		if _, err := q.ExecContext(ctx, `UPDATE project_redirect_urls SET is_default = (url = $3) WHERE project_id = $1 AND redirect_type = $2`,
			projectID, string(t), u); err != nil {
			return fmt.Errorf("project: set default redirect url: %w", err)
		}
	}
	return nil
}

// registeredTypes checks that u is registered for each of types, or, when
// types is empty, returns the types it is registered for (at least one).
func registeredTypes(ctx context.Context, q store.Querier, projectID, u string, types []RedirectType) ([]RedirectType, error) {
	rows, err := q.QueryContext(ctx, `SELECT redirect_type FROM project_redirect_urls WHERE project_id = $1 AND url = $2`, projectID, u)
	if err != nil {
		return nil, fmt.Errorf("project: redirect url types: %w", err)
	}
	defer rows.Close()
	var have []RedirectType
	for rows.Next() {
		var t RedirectType
		if err := rows.Scan(&t); err != nil {
			return nil, fmt.Errorf("project: scan redirect type: %w", err)
		}
		have = append(have, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("project: redirect url types: %w", err)
	}
	if len(have) == 0 {
		return nil, notFound(fmt.Sprintf("redirect URL %s is not registered", u))
	}
	if len(types) == 0 {
		return have, nil
	}
	if _, err := checkTypes(types, RedirectTypes); err != nil {
		return nil, err
	}
	if _, err := checkTypes(types, have); err != nil {
		return nil, notFound(fmt.Sprintf("redirect URL %s is registered only for %s", u, joinTypes(have)))
	}
	return types, nil
}

// checkTypes returns types, or every type of known when it is empty, and
// refuses a type not in known.
func checkTypes(types, known []RedirectType) ([]RedirectType, error) {
	if len(types) == 0 {
		return known, nil
	}
	for _, t := range types {
		if !slices.Contains(known, t) {
			return nil, fmt.Errorf("project: unknown redirect type %q (known: %s)", t, joinTypes(known))
		}
	}
	return types, nil
}

func joinTypes(types []RedirectType) string {
	s := make([]string, len(types))
	for i, t := range types {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// Origins lists a project's authorized browser origins, sorted.
func (s *Store) Origins(ctx context.Context, projectID string) ([]string, error) {
	out, err := store.Strings(ctx, s.db.Read(), `SELECT origin FROM project_origins WHERE project_id = $1 ORDER BY origin`, projectID)
	if err != nil {
		return nil, fmt.Errorf("project: origins: %w", err)
	}
	if out == nil {
		out = []string{} // an empty list on the wire, not null
	}
	return out, nil
}

// RemoveOrigin withdraws a browser origin. The origin is normalised as
// AddOrigin normalises it; an origin stored before default ports were
// dropped (https://host:443) is matched too, so it can still be removed.
// also runs in the same transaction.
func (s *Store) RemoveOrigin(ctx context.Context, projectID, origin string, also ...Also) error {
	norm, err := NormalizeOrigin(origin)
	if err != nil {
		return err
	}
	legacy := norm
	if u, err := url.Parse(norm); err == nil && u.Port() == "" {
		legacy = norm + ":" + defaultPorts[u.Scheme]
	}
	return s.db.Tx(ctx, func(q store.Querier) error {
		res, err := q.ExecContext(ctx, `DELETE FROM project_origins WHERE project_id = $1 AND origin IN ($2, $3)`, projectID, norm, legacy)
		if err != nil {
			return fmt.Errorf("project: remove origin: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("project: remove origin: %w", err)
		} else if n == 0 {
			// "Not authorized" would read as a refusal of the operator;
			// the origin is simply not in the project's list.
			return notFound(fmt.Sprintf("origin %s is not registered", norm))
		}
		return runAlso(q, projectID, also)
	})
}

// notFound is a refusal for something not registered, with its own message
// (store.ErrNotFound's text would add nothing for the operator reading it).
// The message is a plain sentence without the package's prefix: the CLI
// prints it as it is.
type notFound string

func (e notFound) Error() string { return string(e) }
func (e notFound) Unwrap() error { return store.ErrNotFound }
