package clientsecret

import (
	"errors"
	"testing"
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
