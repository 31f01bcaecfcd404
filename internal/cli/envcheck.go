package cli

import (
	"strings"

	"github.com/latchkey/latchkey/internal/config"
)

// toolPrefixes begin LATCHKEY_* variables that this repository's tests,
// benchmarks and scripts read (LATCHKEY_TEST_POSTGRES_DSN, LATCHKEY_PG_PORT,
// …) and a developer's shell may export around a dev server: not typos.
var toolPrefixes = []string{"LATCHKEY_TEST_", "LATCHKEY_BENCH_", "LATCHKEY_PG_", "LATCHKEY_HOSTILE_", "LATCHKEY_BIN"}

// unknownVariables names, in one line, each LATCHKEY_* variable in the
// environment that nothing reads, with the known name it most likely
// misspells; "" when there is none. A misspelled variable is otherwise
// silently ignored (LATCHKEY_TRUSTED_PROXY leaves the load balancer every
// client's address). It is a warning, not a refusal: a variable under the
// prefix may belong to something else sharing the environment, and
// refusing it would stop a server that works.
func unknownVariables(env Env) string {
	if env.Environ == nil {
		return ""
	}
	// The configuration's variables, and those single commands read.
	known := append(config.Variables(), clientSecretVar, newKeyEnv)
	unknown := config.UnknownVariables(env.Environ(), known, toolPrefixes)
	if len(unknown) == 0 {
		return ""
	}
	names := make([]string, len(unknown))
	for i, u := range unknown {
		names[i] = u.Name
		if u.Suggestion != "" {
			names[i] += " (did you mean " + u.Suggestion + "?)"
		}
	}
	return "ignoring unknown variables: " + strings.Join(names, ", ")
}
