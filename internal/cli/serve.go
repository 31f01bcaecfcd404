package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/devmode"
	"github.com/latchkey/latchkey/internal/gctune"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/outbound"
	"github.com/latchkey/latchkey/internal/store"
)

func serve(ctx context.Context, env Env, dev bool) error {
	// Flags first, so that --help and a mistyped flag are answered even
	// where the environment's configuration is wrong.
	fs := newFlags(env.Args[0])
	defaultAddr := config.Defaults().Addr
	if dev {
		defaultAddr = devAddr // loopback: the dev mailbox shows every code
	}
	addr := fs.String("addr", "", "listen address (default: LATCHKEY_ADDR, else "+defaultAddr+")")
	force := new(bool)
	if dev {
		force = fs.Bool("force", false, "run even on a database holding other projects than the demo's, or under a public https base URL")
	}
	if err := parseFlags(fs, env.Args[1:]); err != nil {
		return err
	}
	cfg, err := loadConfig(env)
	if err != nil {
		return err
	}
	if *addr != "" {
		cfg.Addr = *addr
	}
	cfg.Dev = dev
	if dev {
		// The mock SAML and OIDC providers, which the demo organization's
		// connections name, are this server on its loopback address.
		cfg.SSOAllowedNetworks = strings.Trim(outbound.Loopback+","+cfg.SSOAllowedNetworks, ",")
	}
	if dev && !*force && baseURLSet(env) {
		if err := devBaseURLIsLocal(cfg.BaseURL); err != nil {
			return err
		}
	}
	if dev && !addrChosen(fs, env) {
		// The dev mailbox shows every code and link: only this machine may
		// reach it unless --addr or LATCHKEY_ADDR says otherwise.
		cfg.Addr = devAddr
	}
	if err := sqliteFolder(cfg.DatabaseURL); err != nil {
		return err
	}
	level, err := cfg.SlogLevel()
	if err != nil {
		return err
	}
	log := newLogger(env.Stderr, dev, level)
	if msg := unknownVariables(env); msg != "" {
		log.Warn(msg)
	}
	if dev {
		if err := refuseLostDevKey(ctx, cfg); err != nil {
			return err
		}
	}
	keyFile, err := resolveKey(&cfg, dev)
	if err != nil {
		return err
	}
	if keyFile != "" {
		log.Warn("generated a dev encryption key; keep it with the database", "file", keyFile)
	}
	baseSet := baseURLSet(env)
	var ln net.Listener
	if dev && !baseSet {
		// The banner, the demo page, emailed links and the mock providers'
		// redirects must come back to this listener, on whatever port it
		// got (--addr :0 included): listen first, then name it.
		if ln, err = net.Listen("tcp", cfg.Addr); err != nil {
			return fmt.Errorf("listen: %w", err)
		}
		defer ln.Close() // on an early return; Shutdown closes it otherwise
		cfg.BaseURL = devBaseURL(ln.Addr().String())
	}
	a, err := app.New(ctx, cfg, app.Options{Logger: log})
	if errors.Is(err, app.ErrWrongEncryptionKey) && keyFile != "" {
		// refuseLostDevKey found nothing sealed, yet something was by the time
		// the server checked (another process sealed it meanwhile): the
		// new key unlocks nothing, and kept, it would stand in for the
		// other one at the next start.
		_ = os.Remove(keyFile)
		return errKeyFileMissing(keyFile)
	}
	if err != nil {
		return err
	}
	defer func() {
		// Close writes the last_accessed_at times still pending (requests
		// answered during the shutdown touched them after the background
		// flush stopped) and closes the database: a failure loses them,
		// so it is said. The error names no token or secret.
		if err := a.Close(); err != nil {
			log.Error("shutdown: closing the server failed; pending last_accessed_at times may be lost", "error", err)
		}
	}()
	if dev && !*force {
		if err := devDatabaseIsDevs(ctx, a.Projects); err != nil {
			return err
		}
	}
	if dev {
		seeded, err := devmode.Seed(ctx, a.Projects, a.Orgs, cfg.BaseURL)
		if err != nil {
			return err
		}
		if err := devmode.SeedOAuth(ctx, a.OAuth, seeded.Project.ID, cfg.BaseURL); err != nil {
			return err
		}
		if err := devmode.SeedSSO(ctx, a.SSO, a.Orgs, seeded.Project.ID, a.DevSAML, a.DevOIDC); err != nil {
			return err
		}
		printDevBanner(env, cfg.BaseURL, seeded)
	}
	if ln == nil {
		// Production listens only once migrated and wired: a load balancer's
		// TCP check does not pass while migrations run.
		if ln, err = net.Listen("tcp", cfg.Addr); err != nil {
			return fmt.Errorf("listen: %w", err)
		}
	}
	var mln net.Listener
	if cfg.MetricsAddr != "" {
		// Before the main server serves: an address that cannot be had
		// stops the start instead of failing once traffic is flowing.
		if mln, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			ln.Close()
			return fmt.Errorf("listen (LATCHKEY_METRICS_ADDR): %w", err)
		}
	}
	if !dev && !baseSet && !loopbackOnly(ln.Addr()) {
		log.Warn("LATCHKEY_BASE_URL is not set: emailed links, the OAuth and SSO callbacks and the OIDC issuer name "+
			cfg.BaseURL+", which no other machine reaches; set it to this server's public URL",
			"base_url", cfg.BaseURL, "addr", ln.Addr().String())
	}
	var metricsHandler http.Handler
	if mln != nil {
		metricsHandler = a.Metrics.Handler()
	}
	servers := httpServers(a.Handler(), metricsHandler, a.Config.RequestTimeout)
	srv := servers[0]
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	a.Start(ctx)
	gctune.Start(ctx, uint64(cfg.GCFloorMiB)<<20)
	go a.Sweeper().Run(ctx, cfg.SweepInterval)
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(httpapi.Gather(srv, ln)) }()
	// Start-up leaves garbage behind (migration checks, route tables,
	// module wiring): collect it once and give its pages back to the OS now,
	// rather than keep them until the heap grows over them or the background
	// scavenger gets there. It runs beside the first requests, so readiness
	// does not wait for it. GOGC stays at its default: under load the heap
	// grows as usual, trading memory for less GC CPU on the hot path, and no
	// memory limit is set because the right one depends on the host.
	go debug.FreeOSMemory()
	if mln != nil {
		msrv := servers[1]
		go func() { errc <- msrv.Serve(mln) }()
		log.Info("metrics listening", "addr", mln.Addr().String())
	}
	log.Info("latchkey listening", "addr", ln.Addr().String(), "base_url", cfg.BaseURL, "dev", dev,
		"database", dialectName(a.DB))
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var errs []error
	for _, s := range servers {
		errs = append(errs, s.Shutdown(shutdown))
	}
	return errors.Join(errs...)
}

// httpServers builds the main server for api and, when metrics is not
// nil, the metrics listener's server (LATCHKEY_METRICS_ADDR) for it, with
// the same timeouts: a scraper's kept-alive connections, or a client that
// trickles its request or never reads the answer, hold a goroutine and a
// descriptor on either listener until a timeout closes them.
func httpServers(api, metrics http.Handler, write time.Duration) []*http.Server {
	servers := []*http.Server{newHTTPServer(api, write)}
	if metrics != nil {
		servers = append(servers, newHTTPServer(metrics, write))
	}
	return servers
}

// newHTTPServer is a server for h with every listener's timeouts. The
// WriteTimeout, write, is config's RequestTimeout, which also ends the
// handlers' contexts (httpapi.WithDeadline): the server does not cancel
// them, and an answer later than it could not be written anyway.
func newHTTPServer(h http.Handler, write time.Duration) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: write, IdleTimeout: 120 * time.Second}
}

func dialectName(db *store.DB) string { return string(db.Dialect()) }

func printDevBanner(env Env, base string, s *devmode.Seeded) {
	fmt.Fprintf(env.Stdout, "\nLatchkey dev server\n")
	fmt.Fprintf(env.Stdout, "  Demo page:    %s/\n", base)
	fmt.Fprintf(env.Stdout, "  Dev mailbox:  %s/dev/mailbox\n", base)
	fmt.Fprintf(env.Stdout, "  OAuth:        mock Google, Microsoft, HubSpot, Slack, GitHub at %s/dev/oauth/{provider}\n", base)
	fmt.Fprintf(env.Stdout, "  SSO:          dev SAML IdP at %s/dev/saml/sso, dev OIDC IdP at %s/dev/oidc\n", base, base)
	fmt.Fprintf(env.Stdout, "  Widget:       %s/widget/latchkey.js\n", base)
	fmt.Fprintf(env.Stdout, "  Project:      %s (%s)\n", s.Project.Name, s.Project.ID)
	fmt.Fprintf(env.Stdout, "  Public token: %s\n", s.PublicToken)
	if s.Secret != "" {
		fmt.Fprintf(env.Stdout, "  Secret:       %s   (shown once; stored hashed)\n", s.Secret)
	}
	for _, o := range devmode.DemoOrgs {
		fmt.Fprintf(env.Stdout, "  Organization: %s (slug %s), member %s\n", o.Name, o.Slug, o.Member)
	}
	fmt.Fprintln(env.Stdout)
}

func migrate(ctx context.Context, env Env) error {
	db, _, err := openDBFor(ctx, env, true)
	if err != nil {
		return err
	}
	defer db.Close()
	if msg, err := app.NewerSchemaWarning(ctx, db); err != nil {
		return err
	} else if msg != "" {
		fmt.Fprintf(env.Stderr, "latchkey migrate: warning: %s\n", msg)
	}
	fmt.Fprintln(env.Stdout, "migrations applied")
	return nil
}

// baseURLSet reports whether LATCHKEY_BASE_URL was given (the default
// names localhost:8080).
func baseURLSet(env Env) bool {
	v, ok := env.Lookup("LATCHKEY_BASE_URL")
	return ok && strings.TrimSpace(v) != ""
}

// devBaseURL is the dev server's base URL when none is set: the address it
// listens on, named localhost when that is loopback or every address (a
// browser on this machine then gets localhost's secure context and
// cookies), else the address itself.
func devBaseURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return config.Defaults().BaseURL
	}
	if ip := net.ParseIP(host); host == "" || host == "localhost" || ip != nil && (ip.IsLoopback() || ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// loopbackOnly reports whether a listener is reachable from this machine only.
func loopbackOnly(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	return ok && t.IP.IsLoopback()
}

// devAddr is where `latchkey dev` listens by default: loopback only.
const devAddr = "127.0.0.1:8080"

// addrChosen reports whether the listen address was given explicitly.
func addrChosen(fs *flag.FlagSet, env Env) bool {
	chosen := false
	fs.Visit(func(f *flag.Flag) { chosen = chosen || f.Name == "addr" })
	if v, ok := env.Lookup("LATCHKEY_ADDR"); ok && v != "" {
		chosen = true
	}
	return chosen
}

// sqliteFolder creates the folder of a SQLite database file (serve, dev
// and migrate, the commands that create a database), so a fresh
// LATCHKEY_DATABASE_URL path just works. It refuses a value the store would refuse before anything
// is made of it.
func sqliteFolder(dsn string) error {
	path, err := sqlitePath(dsn)
	if err != nil || path == "" {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create the database folder: %w", err)
	}
	return nil
}

// sqlitePath is the file of a SQLite LATCHKEY_DATABASE_URL, "" for another
// engine; a value the store would refuse is refused before anything is
// made of or concluded from it.
func sqlitePath(dsn string) (string, error) {
	d, path, err := store.ParseDSN(dsn)
	switch {
	case err != nil:
		return "", fmt.Errorf("LATCHKEY_DATABASE_URL: %w", err)
	case d != store.SQLite:
		return "", nil
	}
	return path, nil
}
