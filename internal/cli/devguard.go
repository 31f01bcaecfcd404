package cli

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/latchkey/latchkey/internal/devmode"
	"github.com/latchkey/latchkey/internal/outbound"
	"github.com/latchkey/latchkey/internal/project"
)

// Dev mode serves a page showing every emailed code and link, mock
// identity providers that log anyone in, and seeds a demo project with
// open sign-up: pointed at a production database it exposes real
// projects' logins (it once seeded the demo into a PostgreSQL database
// holding real projects). These two checks catch the likely signs of
// that; --force overrides both.

// devBaseURLIsLocal refuses an https base URL on a host other than
// loopback: a certificate and a public name are a production deployment's.
func devBaseURLIsLocal(base string) error {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "https" || outbound.IsLoopbackHost(u.Hostname()) {
		return nil // the shape is Validate's to judge
	}
	return fmt.Errorf("LATCHKEY_BASE_URL %s is a public https address, which looks like production: dev mode shows "+
		"every code in its mailbox and logs anyone in through its mock providers. Run `latchkey serve` there, "+
		"or pass --force if this really is a dev server", base)
}

// devDatabaseIsDevs refuses a database holding any project other than
// the demo seed's.
func devDatabaseIsDevs(ctx context.Context, projects *project.Store) error {
	all, err := projects.List(ctx)
	if err != nil {
		return err
	}
	var others []string
	for _, p := range all {
		if p.Name != devmode.DemoProjectName {
			others = append(others, fmt.Sprintf("%q (%s)", p.Name, p.ID))
		}
	}
	if len(others) == 0 {
		return nil
	}
	if len(others) > 3 {
		others = append(others[:3], fmt.Sprintf("and %d more", len(others)-3))
	}
	return fmt.Errorf("the database holds projects the demo seed did not create (%s): dev mode would add its demo "+
		"project and expose every login through its mailbox and mock providers. Point LATCHKEY_DATABASE_URL at a "+
		"dev database, or pass --force if these are your own test projects", strings.Join(others, ", "))
}
