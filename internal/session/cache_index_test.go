package session

import (
	"testing"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/organization"
)

// An organization's change drops exactly its cached members, through the
// by-organization index rather than a walk of every member; a member's
// own change, a full cache and a project change keep the index in step,
// so a member cached again after any of them is dropped with its
// organization too.
func TestCacheDropsAnOrganizationsMembersByIndex(t *testing.T) {
	t.Parallel()
	c := newHotCache(4)
	put := func(id, org string) {
		c.putMember(c.generation(), &organization.Member{MemberID: id, OrganizationID: org})
	}
	cached := func(id string) bool { _, ok := c.members[id]; return ok }
	put("a1", "A")
	put("a2", "A")
	put("b1", "B")
	c.invalidate(changefeed.Event{Scope: changefeed.Organization, Key: "A"})
	if cached("a1") || cached("a2") || !cached("b1") {
		t.Fatalf("after A's change: %v", c.members)
	}
	if _, ok := c.orgMembers["A"]; ok {
		t.Fatal("A's index entry stayed")
	}

	c.invalidate(changefeed.Event{Scope: changefeed.Member, Key: "b1"})
	if cached("b1") || len(c.orgMembers["B"]) != 0 {
		t.Fatalf("after b1's change: members %v, index %v", c.members, c.orgMembers)
	}

	// A full map is emptied with its index; members cached after it are
	// indexed again.
	for _, id := range []string{"b1", "b2", "b3", "b4", "a3"} {
		put(id, map[bool]string{true: "A", false: "B"}[id == "a3"])
	}
	if len(c.members) != 1 || len(c.orgMembers["B"]) != 0 || len(c.orgMembers["A"]) != 1 {
		t.Fatalf("after the map filled: members %v, index %v", c.members, c.orgMembers)
	}
	c.invalidate(changefeed.Event{Scope: changefeed.Organization, Key: "A"})
	if cached("a3") {
		t.Fatal("a3, cached after the map was emptied, outlived A's change")
	}

	put("b5", "B")
	c.invalidate(changefeed.Event{Scope: changefeed.Project, Key: "p"})
	put("b6", "B")
	c.invalidate(changefeed.Event{Scope: changefeed.Organization, Key: "B"})
	if cached("b5") || cached("b6") || len(c.orgMembers) != 0 {
		t.Fatalf("after B's change: members %v, index %v", c.members, c.orgMembers)
	}
}
