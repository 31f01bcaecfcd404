package audit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"

	"github.com/latchkey/latchkey/internal/audit"
)

// Types holds exactly the constants of the "Event types." block, so a new
// event type cannot be recorded and then refused by `latchkey audit --type`.
func TestTypesListsEveryEventType(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "audit.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST || g.Doc == nil || g.Doc.Text() != "Event types.\n" {
			continue
		}
		for _, spec := range g.Specs {
			for _, v := range spec.(*ast.ValueSpec).Values {
				s, err := strconv.Unquote(v.(*ast.BasicLit).Value)
				if err != nil {
					t.Fatal(err)
				}
				declared = append(declared, s)
			}
		}
	}
	got := slices.Sorted(slices.Values(audit.Types))
	slices.Sort(declared)
	if len(declared) == 0 || !slices.Equal(got, declared) {
		t.Fatalf("audit.Types = %v, the Event types block declares %v", got, declared)
	}
}
