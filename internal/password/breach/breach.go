// Package breach decides whether a password is known to be breached. It
// asks a k-anonymity range API (the Pwned Passwords protocol: GET
// {base}/range/{first 5 hex of SHA-1}, answered by lines "SUFFIX:COUNT"),
// so the password and even its full hash never leave the server. Offline,
// on error, and always in addition, it checks a shipped list of the most
// common breached passwords, so the verdict never degrades to "fine" just
// because the network is down.
package breach

import (
	"bufio"
	"context"
	"crypto/sha1"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
)

//go:generate go run ./gen -o common.txt

//go:embed common.txt
var commonList string

// commonSet is the shipped list as a set, built on first use and shared
// by every Checker: about 0.9 MB of heap that a server which never sees a
// password (or not yet) does not carry, and start-up does not wait for.
var commonSet = sync.OnceValue(func() map[string]struct{} { return parseList(commonList) })

// Defaults for the remote check. The timeout is short because a strength
// check runs on every keystroke of the widget (debounced) and at every
// password change; the shipped list answers when the API is slow.
const (
	DefaultTimeout = 2 * time.Second
	// After a failure the remote is skipped for this long, so an offline
	// server does not pay the timeout on every request.
	retryAfterFailure = 30 * time.Second
	maxResponseBytes  = 2 << 20
)

// Checker answers "is this password breached?".
type Checker struct {
	base   string // "" disables the remote API
	client *http.Client
	clock  clock.Clock

	mu        sync.Mutex
	downUntil time.Time
}

// New returns a checker. base is the range API's base URL (for example
// https://api.pwnedpasswords.com); "" or "off" uses the shipped list only.
func New(base string, c clock.Clock, client *http.Client) *Checker {
	if base == "off" {
		base = ""
	}
	if client == nil {
		client = &http.Client{Timeout: DefaultTimeout}
	}
	return &Checker{base: strings.TrimRight(base, "/"), client: client, clock: c}
}

func parseList(text string) map[string]struct{} {
	out := make(map[string]struct{}, 8192)
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out[line] = struct{}{}
	}
	return out
}

// Source says which evidence a verdict rests on.
type Source string

// Sources of a verdict.
const (
	SourceList   Source = "list"   // the shipped list (remote disabled or unreachable)
	SourceRemote Source = "remote" // the range API answered
)

// InCommonList reports whether password is on the shipped list.
func (c *Checker) InCommonList(password string) bool {
	_, ok := commonSet()[password]
	return ok
}

// CommonListSize is the number of shipped entries.
func (c *Checker) CommonListSize() int { return len(commonSet()) }

// Breached reports whether password is known breached, and on what
// evidence. It never fails: a remote error falls back to the list.
func (c *Checker) Breached(ctx context.Context, password string) (bool, Source) {
	listed := c.InCommonList(password)
	if c.base == "" || !c.remoteUp() {
		return listed, SourceList
	}
	found, err := c.queryRange(ctx, password)
	if err != nil {
		// A caller that left (a client that hung up, a request past its
		// own deadline) ended the query itself, which says nothing about
		// the remote: switching it off for everyone would let anyone with
		// the public token keep it off by hanging up on strength checks.
		// Only a failure while the caller still waited counts.
		if ctx.Err() == nil {
			c.markDown()
		}
		return listed, SourceList
	}
	return found || listed, SourceRemote
}

func (c *Checker) remoteUp() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.clock.Now().Before(c.downUntil)
}

func (c *Checker) markDown() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.downUntil = c.clock.Now().Add(retryAfterFailure)
}

// queryRange sends only the first five hex digits of the SHA-1 and looks
// for the remaining 35 among the answer's suffixes. Padding entries (count
// 0, which the API adds on request so the response size leaks nothing) do
// not count as breaches.
func (c *Checker) queryRange(ctx context.Context, password string) (bool, error) {
	sum := sha1.Sum([]byte(password))
	digest := strings.ToUpper(hex.EncodeToString(sum[:]))
	prefix, suffix := digest[:5], digest[5:]
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/range/"+prefix, nil)
	if err != nil {
		return false, fmt.Errorf("breach: request: %w", err)
	}
	req.Header.Set("Add-Padding", "true")
	req.Header.Set("User-Agent", "Latchkey")
	res, err := c.client.Do(req)
	if err != nil {
		return false, fmt.Errorf("breach: range query: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return false, fmt.Errorf("breach: range query: status %d", res.StatusCode)
	}
	sc := bufio.NewScanner(io.LimitReader(res.Body, maxResponseBytes))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		s, count, ok := strings.Cut(line, ":")
		if !ok || len(s) != 35 {
			return false, errors.New("breach: range answer is not SUFFIX:COUNT lines")
		}
		if strings.EqualFold(s, suffix) && strings.TrimSpace(count) != "0" {
			return true, nil
		}
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("breach: read range answer: %w", err)
	}
	return false, nil
}
