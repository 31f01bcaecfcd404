package session

import (
	"fmt"
	"testing"
	"time"
)

// A remembered signature is used until the session the JWT names ends by
// its own account, whatever the JWT's exp, and for at most cacheTTL after
// it was verified; the map stays bounded, and filling it drops the entries
// get would refuse before the others.
func TestVerifiedEntriesLastUntilTheSessionEndsOrAMinute(t *testing.T) {
	t.Parallel()
	now := time.Now()
	v := &verifiedJWTs{}
	token := func(i int) string { return fmt.Sprintf("eyJ.%d.sig", i) }
	v.put(v.generation(), token(0), verifiedJWT{projectID: "p", sessionID: "s", sessionEnds: now.Add(time.Hour)}, now)
	if id, ok := v.get("p", token(0), now.Add(cacheTTL-time.Millisecond), knownJWT{}); !ok || id != "s" {
		t.Fatal("a live session's JWT was forgotten within the minute")
	}
	if _, ok := v.get("p", token(0), now.Add(cacheTTL), knownJWT{}); ok {
		t.Fatal("an entry was used a minute after its signature was checked")
	}
	v.put(v.generation(), token(2), verifiedJWT{projectID: "p", sessionID: "s", sessionEnds: now.Add(30 * time.Second)}, now)
	if _, ok := v.get("p", token(2), now.Add(30*time.Second), knownJWT{}); ok {
		t.Fatal("an entry was used after its session ended")
	}
	v.put(v.generation(), token(1), verifiedJWT{projectID: "p", sessionID: "s", sessionEnds: now}, now)
	if v.items[token(1)] != nil {
		t.Fatal("a JWT of an ended session was remembered")
	}

	// Fill the map: a quarter of live sessions verified lately, the rest
	// ending within seconds or verified over a minute before.
	v = &verifiedJWTs{}
	for i := range verifiedLimit {
		ends, at := now.Add(10*time.Second), now
		switch i % 4 {
		case 0:
			ends = now.Add(time.Hour)
		case 1:
			ends, at = now.Add(time.Hour), now.Add(-cacheTTL)
		}
		v.put(v.generation(), token(i), verifiedJWT{projectID: "p", sessionID: "s", sessionEnds: ends}, at)
	}
	if len(v.items) != verifiedLimit {
		t.Fatalf("%d entries, want %d", len(v.items), verifiedLimit)
	}
	later := now.Add(20 * time.Second)
	v.put(v.generation(), "eyJ.new.sig", verifiedJWT{projectID: "p", sessionID: "s", sessionEnds: later.Add(time.Hour)}, later)
	if want := verifiedLimit/4 + 1; len(v.items) != want {
		t.Fatalf("after filling: %d entries, want the %d live ones", len(v.items), want)
	}
	if v.items[token(0)] == nil || v.items[token(1)] != nil || v.items[token(2)] != nil {
		t.Fatal("the wrong entries were dropped")
	}

	// Live entries alone: the map starts over rather than grow.
	for i := range verifiedLimit {
		v.put(v.generation(), token(verifiedLimit+i), verifiedJWT{projectID: "p", sessionID: "s", sessionEnds: later.Add(time.Hour)}, later)
	}
	if len(v.items) > verifiedLimit {
		t.Fatalf("%d entries, over the limit of %d", len(v.items), verifiedLimit)
	}
}
