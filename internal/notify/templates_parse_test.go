package notify

import (
	"io/fs"
	"strings"
	"testing"
)

// Templates parse on first use; every file must parse (a broken one would
// otherwise panic at its first email).
func TestEveryTemplateParses(t *testing.T) {
	names, err := fs.Glob(templateFS, "templates/*.txt.tmpl")
	if err != nil || len(names) < 9 {
		t.Fatalf("templates: %v %v", names, err)
	}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".txt.tmpl")
		p := mustTemplate(name).parsed()
		if p.html.Lookup("layout") == nil || p.text == nil {
			t.Errorf("%s: incomplete template", name)
		}
	}
}
