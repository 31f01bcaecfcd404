package notify

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/locale"
)

// Templates parse on first use; every file must parse in every language
// (a broken one would otherwise panic at its first email).
func TestEveryTemplateParses(t *testing.T) {
	names, err := fs.Glob(templateFS, "templates/*.txt.tmpl")
	if err != nil || len(names) < 9 {
		t.Fatalf("templates: %v %v", names, err)
	}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".txt.tmpl")
		for _, tag := range locale.All {
			p := mustTemplate(name).parsed[tag]()
			if p.html.Lookup("layout") == nil || p.text == nil {
				t.Errorf("%s in %s: incomplete template", name, tag)
			}
		}
	}
}
