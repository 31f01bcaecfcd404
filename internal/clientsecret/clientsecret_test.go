package clientsecret

import (
	"errors"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
)

func TestRotation(t *testing.T) {
	first, p := New()
	if p.Hash == first || len(p.LastFour) != 4 || first[len(first)-4:] != p.LastFour {
		t.Fatalf("stored pair leaks or misreports the secret: %+v", p)
	}
	if !p.Matches(first) || p.Matches("") || p.Matches(first+"x") {
		t.Fatal("only the issued secret may match")
	}
	if err := p.Complete(); !errors.Is(err, ErrNoRotation) {
		t.Fatalf("complete without start: %v", err)
	}
	next, err := p.Start()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Start(); !errors.Is(err, ErrRotationStarted) {
		t.Fatalf("second start: %v", err)
	}
	if !p.Matches(first) || !p.Matches(next) {
		t.Fatal("both secrets are valid during a rotation")
	}
	if err := p.Cancel(); err != nil || p.Matches(next) || !p.Matches(first) {
		t.Fatalf("cancel keeps only the first: %v", err)
	}
	next, _ = p.Start()
	if err := p.Complete(); err != nil || p.Matches(first) || !p.Matches(next) || p.NextHash != "" {
		t.Fatalf("complete keeps only the next: %v %+v", err, p)
	}
	public := Pair{}
	if public.Matches("") || public.Matches("anything") {
		t.Fatal("a public client has no secret to match")
	}
}

// An empty secret never matches, even against a pair stored from an empty
// plain secret, and a pair without a current secret (a public client)
// matches nothing, even with a next secret set: Matches refuses both
// before comparing hashes.
func TestEmptySecretsNeverMatch(t *testing.T) {
	if FromPlain("").Matches("") {
		t.Fatal("an empty secret matched")
	}
	public := Pair{}
	next, err := public.Start()
	if err != nil {
		t.Fatal(err)
	}
	if public.Matches(next) {
		t.Fatal("a public client (no current secret) matched a next secret")
	}
}

// Rotate answers misordered steps with the caller's own types, so each
// client kind names its refusals as the API family does.
func TestRotateRefusesWithTheCallersTypes(t *testing.T) {
	refuse := Refusals{AlreadyRotating: apierr.M2MClientAlreadyRotatingSecret, NotRotating: apierr.M2MClientNotRotatingSecret}
	_, p := New()
	for _, step := range []string{StepComplete, StepCancel} {
		if _, err := p.Rotate(step, refuse); !apierr.Is(err, apierr.M2MClientNotRotatingSecret) || !errors.Is(err, ErrNoRotation) {
			t.Fatalf("%s without a rotation: %v", step, err)
		}
	}
	next, err := p.Rotate(StepStart, refuse)
	if err != nil || next == "" {
		t.Fatalf("start: %q %v", next, err)
	}
	_, err = p.Rotate(StepStart, refuse)
	if !apierr.Is(err, apierr.M2MClientAlreadyRotatingSecret) || apierr.From(err).Status != 400 {
		t.Fatalf("second start: %v", err)
	}
}

// The last four shown are characters: a chosen secret ending in multi-byte
// characters shows them whole, never a cut that is invalid UTF-8.
func TestLastFourAreCharacters(t *testing.T) {
	for secret, want := range map[string]string{
		"correct-horse-étoilé": "oilé",
		"passphrase-日本語の鍵":     "本語の鍵",
		"abc":                  "abc",
		"plain-ascii-secret":   "cret",
	} {
		if got := FromPlain(secret).LastFour; got != want {
			t.Errorf("%q: last four %q, want %q", secret, got, want)
		}
	}
}
