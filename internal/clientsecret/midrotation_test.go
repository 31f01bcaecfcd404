package clientsecret

import "testing"

// During a rotation two secrets open the client, and only those two: the
// next hash is compared like the current one, not merely checked to be
// set, or any string would authenticate a client while its secret is
// being rotated.
func TestMidRotationOnlyTheTwoSecretsMatch(t *testing.T) {
	first, p := New()
	next, err := p.Start()
	if err != nil {
		t.Fatal(err)
	}
	other, _ := New()
	for _, s := range []string{other, next + "x", first + "x", "anything"} {
		if p.Matches(s) {
			t.Fatalf("mid-rotation pair matched %q, neither its current nor its next secret", s)
		}
	}
	if !p.Matches(first) || !p.Matches(next) {
		t.Fatal("both issued secrets match during a rotation")
	}
}
