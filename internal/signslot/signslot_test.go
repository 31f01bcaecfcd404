package signslot

import (
	"crypto/rand"
	"crypto/rsa"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/latchkey/latchkey/internal/apptest/testkeys"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/rsasign"
)

func TestSizeLeavesACore(t *testing.T) {
	for procs, want := range map[int]int{1: 1, 2: 1, 4: 3, 16: 15} {
		if got := size(procs); got != want {
			t.Errorf("size(%d) = %d, want %d", procs, got, want)
		}
	}
}

// However many goroutines sign, no more than the slots run at once, and
// every one of them runs.
func TestDoBoundsConcurrentSignatures(t *testing.T) {
	var running, most, done atomic.Int32
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := do(func() error {
				n := running.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				time.Sleep(2 * time.Millisecond)
				running.Add(-1)
				done.Add(1)
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := int(most.Load()); got > cap(slots) || got < 1 {
		t.Fatalf("%d signatures ran at once, the bound is %d", got, cap(slots))
	}
	if done.Load() != 20 {
		t.Fatalf("%d of 20 signatures ran", done.Load())
	}
}

// Sign's output is a compact JWS whose header names the signer's options
// and whose payload verifies and decodes to the claims given.
func TestSignVerifies(t *testing.T) {
	key := testkeys.Next()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "key-1"))
	if err != nil {
		t.Fatal(err)
	}
	type claims struct {
		jwt.Claims
		Roles []string `json:"roles"`
	}
	in := claims{Claims: jwt.Claims{Subject: "member-1", Audience: jwt.Audience{"project-1"},
		Expiry: jwt.NewNumericDate(time.Unix(2_000_000_000, 0))}, Roles: []string{"stytch_member"}}
	out, err := Sign(signer, in)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := jwt.ParseSigned(out, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatal(err)
	}
	if h := parsed.Headers[0]; h.KeyID != "key-1" || h.ExtraHeaders["typ"] != "JWT" {
		t.Fatalf("header = %+v", h)
	}
	var got claims
	if err := parsed.Claims(&key.PublicKey, &got); err != nil {
		t.Fatal(err)
	}
	if got.Subject != "member-1" || len(got.Audience) != 1 || got.Audience[0] != "project-1" ||
		!got.Expiry.Time().Equal(in.Expiry.Time()) || len(got.Roles) != 1 || got.Roles[0] != "stytch_member" {
		t.Fatalf("claims = %+v", got)
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	if err := parsed.Claims(&other.PublicKey, &got); err == nil {
		t.Fatal("verified with another key")
	}
}

// The fast signer gives the very JWT crypto/rsa gives (RS256 signatures
// are deterministic), header included.
func TestRS256FastSignerSameJWT(t *testing.T) {
	priv := testkeys.Next()
	claims := map[string]any{"sub": "member-test-1", "iat": 1700000000}
	var out []string
	for _, k := range []project.SigningKey{{KID: "kid-1", Private: priv}, {KID: "kid-1", Private: priv, Signer: rsasign.New(priv)}} {
		s, err := RS256(k)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := Sign(s, claims)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tok)
	}
	if out[0] != out[1] {
		t.Fatalf("crypto/rsa JWT %s\nfast JWT %s", out[0], out[1])
	}
	parsed, err := jwt.ParseSigned(out[1], []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatal(err)
	}
	if kid := parsed.Headers[0].KeyID; kid != "kid-1" {
		t.Fatalf("kid = %q", kid)
	}
	var got map[string]any
	if err := parsed.Claims(&priv.PublicKey, &got); err != nil || got["sub"] != "member-test-1" {
		t.Fatalf("claims %v, %v", got, err)
	}
}
