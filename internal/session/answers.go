package session

import (
	"sync"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
)

// answers keeps the encoded answers of session checks: a backend checks
// the same session on every request, and encoding its four kilobytes of
// JSON (session, member, organization, JWT) was the largest part of a
// check answered from memory.
//
// Nothing here decides what an answer says; it only spares re-encoding an
// answer built from exactly the same inputs. An answer is a function of
// the hot cache entries it was built from (immutable: a change replaces
// the entry, so pointer identity means "unchanged"), the JWT, whether a
// token was presented (the token found the session by its hash, so it is
// the session's own) and the face. The session token itself is never
// kept: it is cut out of the encoding and put back in each answer. Answers built from a database read, or that
// change the session (extension, a recorded access), are never kept, and
// every invalidation rule of the hot cache applies unchanged, since a
// dropped entry can never be seen again.
type answers struct {
	mu    sync.Mutex
	items map[string]*answer // member_session_id
}

// answerKey is what an answer was built from.
type answerKey struct {
	session *cachedSession
	member  *cachedMember
	org     *cachedOrg
	token   bool // a session token was presented (and is in the answer)
	jwt     string
}

func (k answerKey) complete() bool { return k.session != nil && k.member != nil && k.org != nil }

// answer is immutable: a new face's encoding is stored as a new answer.
type answer struct {
	key   answerKey
	faces [2]encoding // by httpapi.Face (SDK, Backend); empty until needed
}

// encoding is an httpapi.Preencoded without its secret.
type encoding struct {
	tail []byte
	at   int
}

// answersLimit bounds the memo (about 9 KB an entry with both faces);
// reaching it empties the memo, which only costs re-encoding.
const answersLimit = 4096

// tokenMark stands in for the session token while an answer is encoded:
// a value no answer holds otherwise (EncodeTail checks it is found once).
var tokenMark = "session-token-mark-" + ids.Token()

// encoded returns out as it will be written on face: preencoded when out
// was built from the cache alone, its face's form otherwise (out itself on
// the SDK face, whose SDKWire the writer applies; the backend wire type on
// the backend face).
func (s *Service) encoded(out *SessionResponse, face httpapi.Face) any {
	k := out.key
	if k == nil || (face != httpapi.SDK && face != httpapi.Backend) {
		return onFace(out, face)
	}
	id := out.MemberSession.MemberSessionID
	a := s.answers
	a.mu.Lock()
	e := a.items[id]
	a.mu.Unlock()
	if e != nil && e.key == *k {
		if enc := e.faces[face]; enc.tail != nil {
			return httpapi.Preencoded{Face: face, Tail: enc.tail, At: enc.at, Value: out.SessionToken}
		}
	} else {
		e = nil
	}
	payload, mark := out, ""
	if k.token {
		cp := *out
		cp.SessionToken, mark = tokenMark, tokenMark
		payload = &cp
	}
	tail, at, err := httpapi.EncodeTail(face, onFace(payload, face), mark)
	if err != nil {
		return onFace(out, face) // encoded the ordinary way, which reports any error
	}
	n := &answer{key: *k}
	if e != nil {
		*n = *e
	}
	n.faces[face] = encoding{tail: tail, at: at}
	a.mu.Lock()
	if a.items == nil || len(a.items) >= answersLimit {
		a.items = map[string]*answer{}
	}
	a.items[id] = n
	a.mu.Unlock()
	return httpapi.Preencoded{Face: face, Tail: tail, At: at, Value: out.SessionToken}
}

// onFace is the payload that answers out on face.
func onFace(out *SessionResponse, face httpapi.Face) any {
	if face == httpapi.Backend {
		return out.backend()
	}
	return out
}
