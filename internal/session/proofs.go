package session

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Sessions and ISTs store their factors in two columns side by side:
// authentication_factors holds the factors in their wire shape (what
// answers and the session JWT show), and factor_proofs what each factor
// proved beyond its organization, which no public answer shows (see
// Factor.Carries). Every path a factor takes (an IST's factors becoming a
// session's after MFA or primary_required, a held session's merged into
// the next) reads and writes both through encodeFactors and
// decodeFactors, so the provenance follows the factor.

// factorProof is the stored provenance of one factor: an entry of
// factor_proofs, in the order of authentication_factors.
type factorProof struct {
	VerifiedEmail string `json:"verified_email,omitempty"`
}

// encodeFactors returns the authentication_factors and factor_proofs
// columns of factors. factor_proofs is "[]" when no factor proved
// anything, as it is for every row written before the column existed.
// Email codes are stored in their earlier spelling (storedSpelling).
func encodeFactors(factors []Factor) (wire, proofs string, err error) {
	w, err := json.Marshal(storedSpelling(factors))
	if err != nil {
		return "", "", fmt.Errorf("session: encode factors: %w", err)
	}
	stored := []factorProof{}
	for i, f := range factors {
		if f.verifiedEmail == "" {
			continue
		}
		if len(stored) == 0 {
			stored = make([]factorProof, len(factors))
		}
		stored[i].VerifiedEmail = f.verifiedEmail
	}
	p, err := json.Marshal(stored)
	if err != nil {
		return "", "", fmt.Errorf("session: encode factor proofs: %w", err)
	}
	return string(w), string(p), nil
}

// storedSpelling is factors with each email code spelled as releases
// before email_otp wrote it (type otp, delivery email), which every
// release reads: during a rolling deploy a replica of the previous
// release reads the sessions and ISTs this one writes, and knows only
// that spelling (an email_otp factor would not count as an email code
// for its organizations' auth-method rules nor as proof of the inbox).
// unmarshalFactors reads both, so a later release can store email_otp
// once no release before it runs. factors is not modified.
func storedSpelling(factors []Factor) []Factor {
	var out []Factor
	for i, f := range factors {
		if f.Type != EmailOTPType {
			continue
		}
		if out == nil {
			out = slices.Clone(factors)
		}
		out[i].Type = SMSOTPType
	}
	if out == nil {
		return factors
	}
	return out
}

// unmarshalFactors reads an authentication_factors column, each factor as
// this server names it now (Factor.normalized): a row written before email
// codes were email_otp reads as one.
func unmarshalFactors(wire string) ([]Factor, error) {
	var factors []Factor
	if err := json.Unmarshal([]byte(wire), &factors); err != nil {
		return nil, fmt.Errorf("session: decode factors: %w", err)
	}
	for i := range factors {
		factors[i] = factors[i].normalized()
	}
	return factors, nil
}

// decodeFactors reads the two columns back into factors. Proofs that do
// not pair one to one with the factors (the "[]" of a row without any)
// are ignored: such factors prove nothing, the safe default.
func decodeFactors(wire, proofs string) ([]Factor, error) {
	factors, err := unmarshalFactors(wire)
	if err != nil {
		return nil, err
	}
	var stored []factorProof
	if err := json.Unmarshal([]byte(proofs), &stored); err != nil {
		return nil, fmt.Errorf("session: decode factor proofs: %w", err)
	}
	if len(stored) == len(factors) {
		for i := range factors {
			factors[i].verifiedEmail = stored[i].VerifiedEmail
		}
	}
	return factors, nil
}
