package password

import (
	"os/exec"
	"strings"
)

// zxcvbnModuleDir locates the zxcvbn module's source through the go
// command, or returns "" when it cannot.
func zxcvbnModuleDir() string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/trustelem/zxcvbn").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
