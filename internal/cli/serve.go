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
	"strings"
	"syscall"
	"time"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/devmode"
	"github.com/latchkey/latchkey/internal/store"
)

func serve(ctx context.Context, env Env, dev bool) error {
	cfg, err := loadConfig(env)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet(env.Args[0], flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address")
	if err := fs.Parse(env.Args[1:]); err != nil {
		return err
	}
	cfg.Dev = dev
	if dev && !strings.Contains(cfg.DatabaseURL, "://") {
		// Dev keeps its SQLite file under ./data by default; make the folder.
		if err := os.MkdirAll(filepath.Dir(cfg.DatabaseURL), 0o755); err != nil {
			return fmt.Errorf("create data directory: %w", err)
		}
	}
	log := newLogger(env.Stderr, dev)
	keyFile, err := resolveKey(&cfg, dev)
	if err != nil {
		return err
	}
	if keyFile != "" {
		log.Warn("generated a dev encryption key; keep it with the database", "file", keyFile)
	}
	a, err := app.New(ctx, cfg, app.Options{Logger: log})
	if err != nil {
		return err
	}
	defer a.Close()
	if dev {
		seeded, err := devmode.Seed(ctx, a.Projects, a.Orgs, cfg.BaseURL)
		if err != nil {
			return err
		}
		printDevBanner(env, cfg.BaseURL, seeded)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: a.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	a.Start(ctx)
	go sweepRateLimits(ctx, a)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
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
	return srv.Shutdown(shutdown)
}

func dialectName(db *store.DB) string { return string(db.Dialect()) }

func sweepRateLimits(ctx context.Context, a *app.App) {
	t := time.NewTicker(10 * time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := a.Limiter.Sweep(ctx, 24*time.Hour); err != nil {
				a.Log.Warn("rate limit sweep failed", "error", err)
			}
			if err := a.SweepPasswords(ctx); err != nil {
				a.Log.Warn("password sweep failed", "error", err)
			}
			if err := a.Flows.Sweep(ctx, time.Hour); err != nil {
				a.Log.Warn("flow ticket sweep failed", "error", err)
			}
		}
	}
}

func printDevBanner(env Env, base string, s *devmode.Seeded) {
	fmt.Fprintf(env.Stdout, "\nLatchkey dev server\n")
	fmt.Fprintf(env.Stdout, "  Demo page:    %s/\n", base)
	fmt.Fprintf(env.Stdout, "  Dev mailbox:  %s/dev/mailbox\n", base)
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
	db, _, err := openDB(ctx, env)
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Fprintln(env.Stdout, "migrations applied")
	return nil
}
