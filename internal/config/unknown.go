package config

import (
	"slices"
	"strings"
)

// Prefix begins the name of every variable Latchkey reads.
const Prefix = "LATCHKEY_"

// Variables returns the name of every variable FromEnv reads, asked of
// FromEnv itself (a lookup that finds nothing, so it reads them all and
// fails on none), so the list cannot fall behind it.
func Variables() []string {
	var names []string
	_, _ = FromEnv(Defaults(), func(k string) (string, bool) {
		names = append(names, k)
		return "", false
	})
	return names
}

// Unknown is a LATCHKEY_* variable in the environment that nothing reads,
// with the known name it most likely misspells ("" when none is close).
type Unknown struct {
	Name, Suggestion string
}

// maxSuggestDistance is the largest edit distance at which a known name
// is offered: LATCHKEY_TRUSTED_PROXY is 3 from LATCHKEY_TRUSTED_PROXIES.
const maxSuggestDistance = 3

// UnknownVariables returns, in the order given, the names in environ
// (os.Environ's KEY=value form) that begin with Prefix and are neither
// one of known nor under one of ignoredPrefixes.
func UnknownVariables(environ, known, ignoredPrefixes []string) []Unknown {
	var out []Unknown
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, Prefix) || slices.Contains(known, name) ||
			slices.ContainsFunc(ignoredPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			continue
		}
		u, best := Unknown{Name: name}, maxSuggestDistance+1
		for _, k := range known {
			if d := editDistance(name, k); d < best {
				u.Suggestion, best = k, d
			}
		}
		out = append(out, u)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b (ASCII names).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
