package organization_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/organization"
)

func TestAssignmentsChanged(t *testing.T) {
	type a struct{ role, group string }
	list := func(l ...a) *[]a { return &l }
	stored := []a{{"viewer", ""}, {"editor", "writers"}}
	for _, c := range []struct {
		name string
		sent *[]a
		want bool
	}{
		{"not sent", nil, false},
		{"the same", list(a{"viewer", ""}, a{"editor", "writers"}), false},
		{"reordered", list(a{"editor", "writers"}, a{"viewer", ""}), false},
		{"repeated", list(a{"viewer", ""}, a{"editor", "writers"}, a{"viewer", ""}), false},
		{"one added", list(a{"viewer", ""}, a{"editor", "writers"}, a{"stytch_admin", ""}), true},
		{"one replaced", list(a{"viewer", ""}, a{"stytch_admin", "writers"}), true},
		{"another group", list(a{"viewer", ""}, a{"editor", "admins"}), true},
		{"one removed", list(a{"viewer", ""}), true},
		{"emptied", list(), true},
	} {
		if got := organization.AssignmentsChanged(c.sent, stored); got != c.want {
			t.Errorf("%s: changed = %v, want %v", c.name, got, c.want)
		}
	}
	if organization.AssignmentsChanged(&[]a{}, nil) {
		t.Error("an empty list changes no empty one")
	}
}
