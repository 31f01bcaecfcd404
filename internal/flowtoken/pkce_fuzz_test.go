package flowtoken

import "testing"

// FuzzCheckPKCE answers stored challenges with arbitrary verifiers.
// Properties: a flow started without a challenge takes any verifier; one
// started with a challenge is finished only by a verifier whose S256 it is
// (for a challenge made by S256, only by that very verifier), and refused
// otherwise as a PKCE failure; every S256 has the shape StartChallenge
// accepts, and StartChallenge accepts no other.
func FuzzCheckPKCE(f *testing.F) {
	f.Add("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
	f.Add("v", "", "")
	f.Add("", "x", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
	f.Add("a", "a ", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c=")
	f.Fuzz(func(t *testing.T, original, verifier, challenge string) {
		if !ValidChallenge(S256(original)) {
			t.Fatalf("S256(%q) = %q does not have a challenge's shape", original, S256(original))
		}
		if original != "" {
			err := CheckPKCE(S256(original), verifier, "flow")
			if (err == nil) != (verifier == original) || (err != nil && !IsPKCEFailure(err)) {
				t.Fatalf("the challenge of %q answered by %q: %v", original, verifier, err)
			}
		}
		err := CheckPKCE(challenge, verifier, "flow")
		switch {
		case challenge == "" && err != nil:
			t.Fatalf("no challenge, verifier %q: %v", verifier, err)
		case challenge != "" && (err == nil) != (verifier != "" && S256(verifier) == challenge):
			t.Fatalf("challenge %q answered by %q: %v", challenge, verifier, err)
		case err != nil && !IsPKCEFailure(err):
			t.Fatalf("challenge %q answered by %q: %v is no PKCE failure", challenge, verifier, err)
		}
		if err := StartChallenge("pkce_code_challenge", challenge, false); (err == nil) != (challenge == "" || ValidChallenge(challenge)) {
			t.Fatalf("StartChallenge(%q): %v", challenge, err)
		}
	})
}
