package main

import (
	"context"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/password/pwhash"
)

// cheapHash is the least argon2id cost the server accepts (8 KiB, one
// pass): its hash takes microseconds, so a login's CPU is nearly all the
// rest of its work.
var cheapHash = pwhash.Params{MemoryKiB: 8, Iterations: 1, Parallelism: 1}

// overheadFigures measures what a password login costs besides its hash:
// the same logins as passwordFigures against a server whose configured
// cost is cheapHash (so no stored hash is upgraded to a dearer one), less
// the CPU of a cheap hash alone. The OWASP figure's ratio is about
// hash/(hash+this), so this row says where the rest of a login goes.
func overheadFigures(ctx context.Context, o options, rep *report, dsn string) error {
	s, err := startServer(ctx, dsn, func(c *config.Config) {
		c.Argon2MemoryKiB, c.Argon2Iterations, c.Argon2Parallelism = cheapHash.MemoryKiB, cheapHash.Iterations, cheapHash.Parallelism
	})
	if err != nil {
		return err
	}
	defer s.close()
	hash, err := pwhash.Hash(ctx, benchPassword, cheapHash)
	if err != nil {
		return err
	}
	l, err := s.passwordMember("bench-pw-overhead", hash)
	if err != nil {
		return err
	}
	if _, _, _, err := loginSlice(l, 8, time.Second); err != nil { // warm-up
		return err
	}
	var rates, cpus []float64
	for range o.runs {
		n, el, c, err := loginSlice(l, 8, o.duration)
		if err != nil {
			return err
		}
		hn, _, hc, err := slice(1, time.Second/4, func() error { _, err := pwhash.Hash(ctx, benchPassword, cheapHash); return err })
		if err != nil {
			return err
		}
		ms := float64(time.Millisecond)
		rates = append(rates, float64(n)/el.Seconds())
		cpus = append(cpus, float64(c)/ms/float64(n)-float64(hc)/ms/float64(hn))
	}
	rep.add("password login besides its hash (8 KiB hash), SQLite",
		fmt.Sprintf("%.2f ms CPU/login (%.0f logins/s)", median(cpus), median(rates)), "explains the ratio above", nil)
	return nil
}
