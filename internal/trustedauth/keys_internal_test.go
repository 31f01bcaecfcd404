package trustedauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
)

// hangingJWKS serves a JWKS whose answers wait for release.
type hangingJWKS struct {
	srv     *httptest.Server
	hits    atomic.Int32
	release chan struct{}
}

func newHangingJWKS(t *testing.T) *hangingJWKS {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	h := &hangingJWKS{release: make(chan struct{})}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.hits.Add(1)
		select {
		case <-h.release:
		case <-r.Context().Done():
			return
		}
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: k.Public(), KeyID: "k1", Use: "sig"}}})
	}))
	t.Cleanup(h.srv.Close)
	t.Cleanup(h.open)
	return h
}

func (h *hangingJWKS) open() {
	select {
	case <-h.release:
	default:
		close(h.release)
	}
}

func (h *hangingJWKS) waitForHits(t *testing.T, n int32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for h.hits.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the JWKS was asked %d times, want %d", h.hits.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

type keysResult struct {
	keys []jose.JSONWebKey
	err  error
}

func lookUp(ctx context.Context, c *keyCache, p *Profile) chan keysResult {
	out := make(chan keysResult, 1)
	go func() {
		keys, _, err := c.keys(ctx, p, "k1", false)
		out <- keysResult{keys, err}
	}()
	return out
}

// A login waiting for keys stops waiting when its client leaves, and the
// fetch goes on for the logins still waiting, whether the one that left
// started it or not: one fetch serves them all.
func TestKeysWaitEndsWithTheRequestNotTheFetch(t *testing.T) {
	for _, leaver := range []string{"the login that started the fetch", "a login waiting for it"} {
		t.Run(leaver, func(t *testing.T) {
			h := newHangingJWKS(t)
			c := &keyCache{http: h.srv.Client(), clock: clock.NewFake(time.Now())}
			p := &Profile{ProfileID: "p", JWKSURL: h.srv.URL}
			ctx, leave := context.WithCancel(context.Background())
			defer leave()
			var gone, stays chan keysResult
			if leaver == "the login that started the fetch" {
				gone = lookUp(ctx, c, p)
				h.waitForHits(t, 1)
				stays = lookUp(context.Background(), c, p)
			} else {
				stays = lookUp(context.Background(), c, p)
				h.waitForHits(t, 1)
				gone = lookUp(ctx, c, p)
			}
			leave()
			select {
			case r := <-gone:
				if !apierr.Is(r.err, apierr.TrustedAuthTokenKeysUnavailable) {
					t.Errorf("the login that left: %d keys, %v", len(r.keys), r.err)
				}
			case <-time.After(2 * time.Second):
				t.Error("the login whose client left still waits for the fetch")
			}
			h.open()
			select {
			case r := <-stays:
				if r.err != nil || len(r.keys) != 1 {
					t.Fatalf("the login that stayed: %d keys, %v", len(r.keys), r.err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the login that stayed got no answer")
			}
			if n := h.hits.Load(); n != 1 {
				t.Fatalf("JWKS fetched %d times, want 1", n)
			}
		})
	}
}
