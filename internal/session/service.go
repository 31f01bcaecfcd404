package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// Service issues, authenticates and revokes member sessions.
type Service struct {
	db       *store.DB
	clock    clock.Clock
	orgs     *organization.Store
	keys     *keyCache
	jwts     *jwtCache
	mfa      MFAPolicy
	feed     *changefeed.Feed
	hot      *hotCache
	touches  *toucher
	verified *verifiedJWTs
	answers  *answers
	starts   []StartHook
	limiter  *ratelimit.Limiter // counts failed checks (Check); nil counts nothing
}

// StartHook runs inside the login transaction just before a session is
// created, with the member and the factors the session will carry. It may
// fill in factor fields and return the member reloaded. Modules use it to
// record what a login proved that only a member can hold: an OAuth
// registration proven in discovery, before the member existed.
type StartHook func(ctx context.Context, q store.Querier, p *project.Project, m *organization.Member,
	factors []Factor) (*organization.Member, error)

// OnStart adds a hook run before every session is created. Call it while
// wiring, before serving.
func (s *Service) OnStart(h StartHook) { s.starts = append(s.starts, h) }

// LimitFailures makes Check count failed session checks with l. Call it
// while wiring, before serving.
func (s *Service) LimitFailures(l *ratelimit.Limiter) { s.limiter = l }

// Check is Authenticate for a session a client presents, under the
// per-address failure limit (FailuresPerIP, GuardUnguessable): a valid
// session always passes and costs the limiter nothing. Every place that
// takes a session from a client checks it here, so failures are counted
// once, the same way.
func (s *Service) Check(ctx context.Context, p *project.Project, clientIP string, cred Credential, duration *int) (*SessionResponse, error) {
	return s.check(ctx, p, clientIP, cred, change{duration: duration})
}

// check is Check with the changes the backend's session check may ask for.
func (s *Service) check(ctx context.Context, p *project.Project, clientIP string, cred Credential, c change) (*SessionResponse, error) {
	var out *SessionResponse
	err := s.guardFailures(ctx, p, clientIP, func() error {
		var err error
		out, err = s.authenticate(ctx, p, cred, c)
		return err
	})
	return out, err
}

// guardFailures runs check, a use of a session a client presents, under
// FailuresPerIP for clientIP (GuardUnguessable): an unknown session or an
// unreadable JWT counts, a valid session always passes. Whatever takes a
// session from a client counts through here, so every such use (a check,
// an SDK revoke) spends the one allowance.
func (s *Service) guardFailures(ctx context.Context, p *project.Project, clientIP string, check func() error) error {
	if s.limiter == nil {
		return check()
	}
	return s.limiter.GuardUnguessable(ctx, check, ratelimit.FailureOf(apierr.SessionNotFound, apierr.UnableToParseSessionJWT),
		ratelimit.For(FailuresPerIP, p.ID+"|"+clientIP))
}

// change is what a session check writes to the session besides its last
// access: a new duration, custom claims (session_custom_claims, merged by
// MergeClaims; nil changes none). authorize, when set, is the request's
// authorization check (Handlers.authorizing): it runs with the session's
// organization and roles before anything is written, and its refusal
// fails the check with nothing changed.
type change struct {
	duration  *int
	claims    map[string]any
	authorize func(ctx context.Context, org *organization.Organization, roles []string) error
}

// New returns a session service. Its caches (the hot path's sessions,
// members and organizations, and the signing keys) follow feed: every
// table they are built from must be among the feed's watches (app.Watches).
func New(db *store.DB, c clock.Clock, orgs *organization.Store, keys Keys, feed *changefeed.Feed) *Service {
	s := &Service{db: db, clock: c, orgs: orgs, feed: feed,
		keys: &keyCache{src: keys, feed: feed, items: map[string]keyEntry{}},
		jwts: &jwtCache{items: map[string]cachedJWT{}},
		hot:  newHotCache(200000), answers: &answers{},
		touches: newToucher(db), verified: &verifiedJWTs{}}
	feed.Subscribe(s.hot.invalidate)
	feed.Subscribe(s.keys.invalidate)
	feed.Subscribe(s.jwts.invalidate)
	feed.Subscribe(s.verified.invalidate)
	return s
}

// DurationMinutes validates a requested session duration; nil (or 0)
// means the project's default. Every login, refresh and exchange that
// takes session_duration_minutes calls it with its request's context, so
// that on the SDK face (project.CallerFrom: the public token, no secret)
// a duration over the project's SDKMaxSessionDurationMinutes is refused:
// a script holding only the public token and a session cookie must not
// stretch that session to a year. It is refused as the API family refuses
// it (invalid_session_duration, "exceeds the maximum session duration
// allowed for this project"), not clamped: a session quietly shorter
// than the integrator configured would surprise them later. The backend
// face keeps the full range. A login that asks for no duration gets the
// project's default, capped at the SDK maximum on the SDK face. A context
// without a caller (a Go caller, not a request) is not the SDK face.
func DurationMinutes(ctx context.Context, p *project.Project, requested *int) (int, error) {
	c := project.CallerFrom(ctx)
	sdk := c.Project != nil && !c.Backend
	if requested == nil || *requested == 0 {
		// The project's default may be longer than its SDK maximum (both
		// are the operator's): the SDK face never starts a session longer
		// than it would accept being asked for.
		if sdk && p.SDKMaxSessionDurationMinutes > 0 && p.SessionDurationMinutes > p.SDKMaxSessionDurationMinutes {
			return p.SDKMaxSessionDurationMinutes, nil
		}
		return p.SessionDurationMinutes, nil
	}
	if *requested < MinDurationMinutes || *requested > MaxDurationMinutes {
		return 0, apierr.New(apierr.InvalidSessionDuration)
	}
	if sdk && *requested > p.SDKMaxSessionDurationMinutes {
		return 0, apierr.New(apierr.InvalidSessionDuration).WithMessage(fmt.Sprintf("The submitted session duration "+
			"exceeds the maximum session duration allowed for this project: %d minutes through the SDK.", p.SDKMaxSessionDurationMinutes))
	}
	return *requested, nil
}

// CompleteParams describes a successful primary authentication.
type CompleteParams struct {
	Project         *project.Project
	Organization    *organization.Organization
	Member          *organization.Member
	Factor          Factor
	DurationMinutes int
	MethodID        string
	// Prior are factors proven earlier (from a redeemed IST); Factor is
	// appended after them.
	Prior []Factor
	// PolicyMet says the organization's auth and MFA policies were already
	// satisfied when the credential behind Factor was issued (a connected
	// app's access token, issued from a complete session), or do not
	// apply to it (an operator's impersonation), so the answer is a
	// session, never an IST.
	PolicyMet bool
	// From is a session the caller holds (Held, or the session an MFA
	// check steps up): it must be the same member's, its factors come
	// before Factor, and it ends when the new session starts, so stepping
	// up never leaves two live sessions. An answer that is an IST leaves
	// it as it was. Either way the database must still hold it live
	// (EndHeld, ConfirmHeld): the check that produced it may have been
	// answered from memory.
	From *SessionResponse
	// CustomClaims are the new session's custom claims (ClaimsField), by
	// the rule of MergeClaims, merged into From's when set. An answer that
	// is an IST keeps none: the step that completes the login brings its
	// own.
	CustomClaims map[string]any
	// SessionsEnded says this login's first proof of the member's address
	// ended access that came in without one, and with it every session
	// and IST of the member, inside the caller's transaction
	// (organization.Store.MarkEmailVerified, EndMember). Whoever held
	// them may have been someone else: a held session of the member (From)
	// is among them and nothing of it carries over, and the answer says
	// the sessions were reset (AuthResponse.SessionsReset).
	SessionsEnded bool

	// fromEnded says From was already ended inside the caller's
	// transaction (EndHeld, by CompleteEmailChange before it ends the
	// member's other sessions), so Complete does not end it again.
	fromEnded bool
}

// Complete is where every successful authentication step ends, inside the
// caller's transaction q so the one-time secret's redemption and its
// outcome commit together or not at all. It holds the member's row until
// q ends and refuses a member deleted, or at another address, since the
// caller read p.Member (confirmMember). It decides, in order:
//  1. the organization's auth policy accepts none of the primary factors:
//     an IST and primary_required;
//  2. the MFA policy wants a second factor not yet given: an IST and
//     mfa_required;
//  3. otherwise a session carrying every factor.
//
// An impersonation factor stands alone and caps the duration
// (checkImpersonated).
func (s *Service) Complete(ctx context.Context, q store.Querier, p CompleteParams) (*AuthResponse, error) {
	// Millisecond precision is what the database keeps; answering with the
	// same precision keeps a session's times identical on every read.
	now := s.clock.Now().Truncate(time.Millisecond)
	p.Factor = p.Factor.normalized()
	if p.Factor.LastAuthenticatedAt.IsZero() {
		p.Factor.LastAuthenticatedAt = now
	}
	if p.Factor.SequenceOrder == "" {
		p.Factor.SequenceOrder = Primary
	}
	if p.SessionsEnded && p.From != nil && p.From.Member.MemberID == p.Member.MemberID {
		// Ended in q with the member's others (SessionsEnded): it neither
		// ends again nor lends its factors, claims or lineage. Another
		// member's session is still refused by stepUp.
		p.From, p.fromEnded = nil, false
	}
	if p.From != nil {
		if err := stepUp(&p); err != nil {
			return nil, err
		}
	}
	// Before anything is issued: a session or an IST names the member and
	// carries factors proven for the address the caller read.
	if err := s.confirmMember(ctx, q, p.Project.ID, p.Member); err != nil {
		return nil, err
	}
	// A stepped-up session is the same session to its holder: its claims
	// carry over, updated by the login's.
	var held map[string]any
	if p.From != nil {
		held = p.From.MemberSession.CustomClaims
	}
	claims, claimsText, err := mergeClaims(held, p.CustomClaims)
	if err != nil {
		return nil, err
	}
	// The session's own copy: Prior may be a cached session's factors,
	// which the start hooks below must not write into (Factor.clone).
	factors := cloneFactors(p.Prior, p.Factor)
	if err := checkImpersonated(&p, factors); err != nil {
		return nil, err
	}
	if !p.PolicyMet && !primarySatisfied(p.Organization, p.Member, factors) {
		return s.intermediateResponse(ctx, q, p, factors, primaryRequired(p.Organization), nil)
	}
	if !p.PolicyMet && s.mfa != nil && !hasSecondary(factors) {
		req, err := s.mfa.Required(ctx, q, p.Project, p.Organization, p.Member, factors)
		if err != nil {
			return nil, err
		}
		if req != nil {
			return s.intermediateResponse(ctx, q, p, factors, nil, req)
		}
	}
	if p.From != nil && !p.fromEnded {
		if err := s.EndHeld(ctx, q, p.Project.ID, p.From.MemberSession.MemberSessionID); err != nil {
			return nil, err
		}
	}
	for _, h := range s.starts {
		m, err := h(ctx, q, p.Project, p.Member, factors)
		if err != nil {
			return nil, err
		}
		p.Member = m
	}
	ms := &MemberSession{
		MemberSessionID: ids.New("member-session", p.Project.Env), MemberID: p.Member.MemberID,
		OrganizationID: p.Organization.OrganizationID, StartedAt: now, LastAccessedAt: now,
		ExpiresAt: now.Add(time.Duration(p.DurationMinutes) * time.Minute), AuthenticationFactors: factors,
		CustomClaims: claims, claimsText: claimsText, Roles: p.Member.SessionRoles(ssoConnections(factors)),
		OrganizationSlug: p.Organization.OrganizationSlug,
	}
	// A step-up continues the held session's lineage (Lineage); anything
	// else starts one.
	ms.lineage = ms.MemberSessionID
	if p.From != nil {
		ms.lineage = p.From.MemberSession.Lineage()
	}
	ms.IPAddress, ms.UserAgent = httpapi.Client(ctx)
	token := ids.Token()
	factorsJSON, proofsJSON, err := encodeFactors(ms.AuthenticationFactors)
	if err != nil {
		return nil, err
	}
	if _, err := q.ExecContext(ctx, `INSERT INTO member_sessions (member_session_id, project_id, organization_id, member_id,
		token_hash, authentication_factors, factor_proofs, started_at, last_accessed_at, expires_at, ip_address, user_agent,
		custom_claims, lineage_id) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)`,
		ms.MemberSessionID, p.Project.ID, ms.OrganizationID, ms.MemberID, ids.Hash(token), factorsJSON, proofsJSON,
		store.Millis(now), store.Millis(now), store.Millis(ms.ExpiresAt), ms.IPAddress, ms.UserAgent, claimsText,
		ms.lineage); err != nil {
		return nil, fmt.Errorf("session: insert: %w", err)
	}
	// The key is read inside the transaction (a missing key fails the
	// login); the RSA signature, the costliest step of a login, is made
	// after the commit so it never holds SQLite's single writer. The JWT
	// cache's generation is read first so that a key retired meanwhile
	// does not leave its JWT cached.
	jwtGen := s.jwts.generation()
	key, err := s.signingKey(ctx, p.Project.ID, now)
	if err != nil {
		return nil, err
	}
	resp := &AuthResponse{
		SessionResponse: SessionResponse{MemberID: ms.MemberID, MemberSession: ms, SessionToken: token,
			Member: p.Member, Organization: p.Organization},
		OrganizationID: ms.OrganizationID, MemberAuthenticated: true, MethodID: p.MethodID,
		sessionsReset: p.SessionsEnded,
	}
	err = store.Finish(q, func() error {
		jwtText, err := signWith(key, p.Project.ID, ms, now)
		if err != nil {
			return err
		}
		resp.SessionJWT = jwtText
		s.jwts.put(jwtGen, p.Project.ID, ms, jwtText, now)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// intermediateResponse answers an authentication step that needs another
// step: an IST naming the member and organization, and what is required.
func (s *Service) intermediateResponse(ctx context.Context, q store.Querier, p CompleteParams, factors []Factor,
	primary *PrimaryRequired, mfa *MFARequired) (*AuthResponse, error) {
	// The IST carries the held session's factors: the database, not the
	// check made from memory before q began, says it still stands.
	if p.From != nil && !p.fromEnded {
		if err := s.ConfirmHeld(ctx, q, p.Project.ID, p.From.MemberSession.MemberSessionID); err != nil {
			return nil, err
		}
	}
	tok, err := s.IssueIntermediate(ctx, q, p.Project, Intermediate{Email: p.Member.EmailAddress,
		OrganizationID: p.Organization.OrganizationID, MemberID: p.Member.MemberID, Factors: factors})
	if err != nil {
		return nil, err
	}
	resp := &AuthResponse{
		SessionResponse: SessionResponse{MemberID: p.Member.MemberID, Member: p.Member, Organization: p.Organization},
		OrganizationID:  p.Organization.OrganizationID, IntermediateSessionToken: tok, MethodID: p.MethodID,
		sessionsReset: p.SessionsEnded,
	}
	// A typed nil inside an interface would marshal as null anyway, but
	// leaving the fields untouched keeps the intent plain.
	if primary != nil {
		resp.PrimaryRequired = primary
	}
	if mfa != nil {
		resp.MFARequired = mfa
	}
	return resp, nil
}

type row struct {
	ms        MemberSession
	projectID string
	revokedAt *int64
}

// selectSession reads what a session check answers with. The lineage
// rides in the same row, so the hot cache holds it and a check answered
// from memory costs nothing more for it; a NULL lineage (a row from
// before store migration 0107) is the session's own id.
const selectSession = `SELECT member_session_id, project_id, organization_id, member_id, authentication_factors,
	factor_proofs, started_at, last_accessed_at, expires_at, revoked_at, ip_address, user_agent, custom_claims,
	COALESCE(lineage_id, member_session_id) FROM member_sessions `

func (s *Service) load(ctx context.Context, where string, arg any) (*row, error) {
	return scanRow(s.db.Read().QueryRowContext(ctx, selectSession+where, arg))
}

// scanRow reads one row of selectSession.
func scanRow(sc interface{ Scan(...any) error }) (*row, error) {
	var r row
	var factors, proofs string
	var started, last, exp int64
	err := sc.Scan(&r.ms.MemberSessionID, &r.projectID, &r.ms.OrganizationID, &r.ms.MemberID, &factors, &proofs,
		&started, &last, &exp, &r.revokedAt, &r.ms.IPAddress, &r.ms.UserAgent, &r.ms.claimsText,
		&r.ms.lineage)
	if err != nil {
		return nil, store.MapError(err)
	}
	if r.ms.AuthenticationFactors, err = decodeFactors(factors, proofs); err != nil {
		return nil, err
	}
	r.ms.StartedAt, r.ms.LastAccessedAt, r.ms.ExpiresAt = store.Time(started), store.Time(last), store.Time(exp)
	if r.ms.CustomClaims, r.ms.claimsText, err = storedClaims(r.ms.claimsText); err != nil {
		return nil, fmt.Errorf("session %s: %w", r.ms.MemberSessionID, err)
	}
	return &r, nil
}

// Credential names the session to authenticate: a session token, or a
// session JWT (verified, then looked up so revocation still applies).
type Credential struct {
	Token string
	JWT   string

	known knownJWT // what the verified cache held for JWT as the request was read
}

// TooManyArguments is the refusal of a request that names its session
// twice, by token and by JWT: the API family answers it with its own type
// rather than picking one, since the two could name different sessions.
func TooManyArguments() error {
	return apierr.New(apierr.TooManySessionArguments).WithMessage("Send session_token or session_jwt, not both.")
}

// lastAccessWriteEvery throttles last_accessed_at writes on the hot path.
const lastAccessWriteEvery = time.Minute

// Authenticate checks a session of project p and returns it with a JWT.
// A duration extends the session to now+duration. A known session is
// answered from memory (see hotCache); last_accessed_at is written in the
// background (see toucher).
func (s *Service) Authenticate(ctx context.Context, p *project.Project, cred Credential, duration *int) (*SessionResponse, error) {
	return s.authenticate(ctx, p, cred, change{duration: duration})
}

func (s *Service) authenticate(ctx context.Context, p *project.Project, cred Credential, c change) (*SessionResponse, error) {
	// Milliseconds, the precision the row keeps (as Complete): an extension
	// or a touch answers, signs and caches the times the next read returns,
	// on this replica or another.
	now := s.clock.Now().Truncate(time.Millisecond)
	duration := c.duration
	var tokenHash, id string
	switch {
	case cred.Token != "" && cred.JWT != "":
		return nil, TooManyArguments()
	case cred.Token != "":
		tokenHash = ids.Hash(cred.Token)
	case cred.JWT != "":
		var err error
		if id, err = s.verifyKnown(ctx, p.ID, cred.JWT, now, cred.known); err != nil {
			if errors.Is(err, errBadJWT) {
				return nil, apierr.Wrap(apierr.UnableToParseSessionJWT, err)
			}
			return nil, err
		}
	default:
		return nil, apierr.New(apierr.UnauthorizedCredentials).WithMessage("A session token or session JWT is required.")
	}
	// Without a fresh feed the caches cannot be trusted: read everything,
	// unless the database did not answer the feed at all.
	cached, err := s.feed.Usable(ctx)
	if err != nil {
		return nil, fmt.Errorf("session: authenticate: %w", err)
	}
	gen := s.hot.generation()
	var key answerKey
	r, err := s.session(ctx, cached, gen, tokenHash, id, &key)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (r.projectID != p.ID || r.revokedAt != nil || !now.Before(r.ms.ExpiresAt))) {
		// Another project's session, a revoked one and an expired one all
		// look the same: not found.
		return nil, apierr.Wrap(apierr.SessionNotFound, err)
	}
	if err != nil {
		return nil, fmt.Errorf("session: authenticate: %w", err)
	}
	// A member or organization that is gone (or a member no longer
	// active) ends the session: not found. Any other error is the
	// database's, and passes through as one: answered session_not_found,
	// SDKs and the widget drop the session, so a blip logged users out.
	member, err := s.member(ctx, cached, gen, p.ID, r.ms.MemberID, &key)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("session: authenticate: member: %w", err)
	}
	if err != nil {
		return nil, apierr.Wrap(apierr.SessionNotFound, fmt.Errorf("session member gone: %w", err))
	}
	if member.Status != organization.StatusActive {
		// The log's cause names the status (it said "<nil>").
		return nil, apierr.Wrap(apierr.SessionNotFound, fmt.Errorf("session member %s", member.Status))
	}
	org, err := s.org(ctx, cached, gen, p.ID, r.ms.OrganizationID, &key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.Wrap(apierr.SessionNotFound, err)
	}
	if err != nil {
		return nil, fmt.Errorf("session: authenticate: organization: %w", err)
	}
	ms := r.ms // a copy: the cached row stays as it was
	// Roles are recomputed on every check with the organization as it is
	// now (a cached member may predate a change of its email
	// assignments), so a role taken away is gone from the next answer.
	member = member.RolesIn(org)
	ms.Roles, ms.OrganizationSlug = member.SessionRoles(ssoConnections(ms.AuthenticationFactors)), org.OrganizationSlug

	// extendTo is the expiry a requested duration sets (zero: none asked).
	var extendTo time.Time
	if duration != nil && *duration != 0 {
		mins, err := DurationMinutes(ctx, p, duration)
		if err != nil {
			return nil, err
		}
		extendTo = extendedExpiry(&ms, now, mins)
	}
	if c.authorize != nil {
		if err := c.authorize(ctx, org, ms.Roles); err != nil {
			return nil, err
		}
	}
	if c.claims != nil {
		// Written before answering, like an extension, in one
		// transaction with it (writeClaims).
		if err := s.writeClaims(ctx, &ms, c.claims, extendTo, now); err != nil {
			return nil, err
		}
		s.jwts.drop(ms.MemberSessionID)
		key = answerKey{}
	} else if !extendTo.IsZero() {
		// Extending is the caller's explicit request, so it is written
		// before answering; its trigger drops every cached copy. The
		// session was checked from memory, which on a replica may be up
		// to a second behind a revocation (or a shorter extension) made
		// on another: the database decides, as in writeClaims. A row it
		// no longer holds live is refused, not answered with an expiry
		// never stored and a fresh JWT, and an expired row is not revived.
		ms.ExpiresAt = extendTo
		if now.After(ms.LastAccessedAt) {
			ms.LastAccessedAt = now
		}
		// Never backwards, as the toucher writes it: a replica whose clock
		// runs ahead may have recorded a later access.
		res, err := s.db.ExecContext(ctx, `UPDATE member_sessions SET expires_at = $2,
			last_accessed_at = CASE WHEN last_accessed_at < $1 THEN $1 ELSE last_accessed_at END
			WHERE member_session_id = $3 AND project_id = $4 AND revoked_at IS NULL AND expires_at > $1`,
			store.Millis(now), store.Millis(ms.ExpiresAt), ms.MemberSessionID, p.ID)
		if err != nil {
			return nil, fmt.Errorf("session: extend: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, fmt.Errorf("session: extend: %w", err)
		}
		if n == 0 {
			// This process's copies are stale: drop them now, so the next
			// check reads the row. (The UPDATE also moved db.Writes, so
			// the next Fresh syncs and the feed drops them as well; this
			// does not lean on that.)
			s.feed.Invalidate(changefeed.Event{Table: "member_sessions", Scope: changefeed.Session, Key: ms.MemberSessionID})
			return nil, apierr.Wrap(apierr.SessionNotFound, errors.New("session: extend: the session is no longer live"))
		}
		s.jwts.drop(ms.MemberSessionID)
		key = answerKey{} // the answer is not the cached session's
	} else if now.Sub(ms.LastAccessedAt) >= lastAccessWriteEvery {
		ms.LastAccessedAt = now
		s.touches.touch(ms.MemberSessionID, now)
		s.hot.touched(ms.MemberSessionID, now)
		s.jwts.drop(ms.MemberSessionID)
		key = answerKey{}
	}
	// Without a fresh feed a key change may not have reached the JWT
	// cache either: sign anew.
	jwtText, jwtGen, ok := "", uint64(0), false
	if cached {
		jwtText, jwtGen, ok = s.jwts.get(&ms, now)
	}
	if !ok {
		if jwtText, err = s.sign(ctx, p.ID, &ms, now); err != nil {
			return nil, err
		}
		if cached {
			s.jwts.put(jwtGen, p.ID, &ms, jwtText, now)
		}
	}
	out := &SessionResponse{MemberID: member.MemberID, MemberSession: &ms, SessionToken: cred.Token, SessionJWT: jwtText,
		Member: member, Organization: org}
	if key.complete() {
		key.token, key.jwt = cred.Token != "", jwtText
		out.key = &key
	}
	return out, nil
}

// session loads a session by token hash or id, from memory when allowed.
// The entries the answer was built from are noted in key.
func (s *Service) session(ctx context.Context, cached bool, gen uint64, tokenHash, id string, key *answerKey) (row, error) {
	if cached {
		if r, e := s.hot.session(tokenHash, id); e != nil {
			key.session = e
			return r, nil
		}
	}
	var r *row
	var err error
	if tokenHash != "" {
		r, err = s.load(ctx, `WHERE token_hash = $1`, tokenHash)
	} else {
		r, err = s.load(ctx, `WHERE member_session_id = $1`, id)
	}
	if err != nil {
		return row{}, err
	}
	if cached {
		s.hot.putSession(gen, *r, tokenHash)
	}
	return *r, nil
}

func (s *Service) member(ctx context.Context, cached bool, gen uint64, projectID, memberID string, key *answerKey) (*organization.Member, error) {
	if cached {
		if m, e := s.hot.member(memberID); e != nil && m.ProjectID() == projectID {
			key.member = e
			return m, nil
		}
	}
	m, err := s.orgs.Member(ctx, s.db.Read(), projectID, memberID)
	if err == nil && cached {
		s.hot.putMember(gen, m)
	}
	return m, err
}

// Organization is organization orgID of project projectID as a session
// check sees it: from memory while the change feed is fresh (a change on
// this process is seen by the next read, on another within a second),
// else from the database. Logins read it this way so a login costs no
// more reading than a check, and the check after it finds it warm.
func (s *Service) Organization(ctx context.Context, projectID, orgID string) (*organization.Organization, error) {
	var key answerKey
	cached, err := s.feed.Usable(ctx)
	if err != nil {
		return nil, fmt.Errorf("session: organization: %w", err)
	}
	return s.org(ctx, cached, s.hot.generation(), projectID, orgID, &key)
}

func (s *Service) org(ctx context.Context, cached bool, gen uint64, projectID, orgID string, key *answerKey) (*organization.Organization, error) {
	if cached {
		if o, e := s.hot.org(orgID); e != nil && o.ProjectID() == projectID {
			key.org = e
			return o, nil
		}
	}
	o, err := s.orgs.Get(ctx, projectID, orgID)
	if err == nil && cached {
		s.hot.putOrg(gen, o)
	}
	return o, err
}

// RevokeTarget names what to revoke; exactly one field is set.
type RevokeTarget struct {
	SessionID string
	Token     string
	JWT       string
	MemberID  string
}

// single refuses a target naming more than one thing: the API family
// answers too_many_session_revoke_arguments rather than revoking one of
// them, which could be another session than the caller meant.
func (t RevokeTarget) single() error {
	n := 0
	for _, v := range []string{t.SessionID, t.Token, t.JWT, t.MemberID} {
		if v != "" {
			n++
		}
	}
	if n > 1 {
		return apierr.New(apierr.TooManyRevokeArguments)
	}
	return nil
}

// Revoke ends sessions of project p. Revoking an already revoked session
// is not an error; naming one that never existed is session_not_found, and
// naming a member the project does not have is member_not_found (a member
// without sessions is not an error). The callers acting for a member
// (the member session header, the SDK's revokeForMember) have checked the
// member in their organization before; the project secret's scope is the
// project, checked here, so both answers agree about an unknown id.
func (s *Service) Revoke(ctx context.Context, p *project.Project, t RevokeTarget) error {
	if err := t.single(); err != nil {
		return err
	}
	now := s.clock.Now()
	where, arg, err := s.revokeMatch(ctx, p.ID, t, now, 3)
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE member_sessions SET revoked_at = COALESCE(revoked_at, $1)
		WHERE project_id = $2 AND `+where, store.Millis(now), p.ID, arg)
	if err != nil {
		return fmt.Errorf("session: revoke: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if t.MemberID == "" {
			return apierr.New(apierr.SessionNotFound)
		}
		// Only when nothing matched: a member with sessions exists.
		if _, err := s.orgs.Member(ctx, s.db.Read(), p.ID, t.MemberID); err != nil {
			return organization.NotFound(err, apierr.MemberNotFound)
		}
	}
	if t.SessionID != "" {
		s.jwts.drop(t.SessionID)
	}
	return nil
}

// revokeMatch turns a revoke target into the member_sessions condition that
// selects its sessions, with its argument at placeholder $n; a JWT names
// its session only once its signature verifies.
func (s *Service) revokeMatch(ctx context.Context, projectID string, t RevokeTarget, now time.Time, n int) (string, any, error) {
	ph := fmt.Sprintf("$%d", n)
	switch {
	case t.SessionID != "":
		return "member_session_id = " + ph, t.SessionID, nil
	case t.Token != "":
		return "token_hash = " + ph, ids.Hash(t.Token), nil
	case t.JWT != "":
		id, err := s.verify(ctx, projectID, t.JWT, now)
		if errors.Is(err, errBadJWT) {
			return "", nil, apierr.Wrap(apierr.UnableToParseSessionJWT, err)
		}
		if err != nil {
			// Not the JWT's fault (the keys could not be read): a server
			// error, as in authenticate, not a 401 the caller would
			// take for a bad token.
			return "", nil, fmt.Errorf("session: revoke: %w", err)
		}
		return "member_session_id = " + ph, id, nil
	case t.MemberID != "":
		return "member_id = " + ph, t.MemberID, nil
	}
	return "", nil, apierr.Invalid("member_session_id", "One of member_session_id, session_token, session_jwt or member_id is required.")
}

// EmailLogin is a primary login in which the member proved control of
// their email address (a magic link or an email code).
type EmailLogin struct {
	Project         *project.Project
	Organization    *organization.Organization
	Member          *organization.Member
	FactorType      string // "magic_link" or EmailOTPType
	DurationMinutes int
	// IST is the intermediate session the client sent along, if any.
	IST string
	// From is the session the client holds, if any (CompleteParams.From).
	From *SessionResponse
	// CustomClaims are the new session's (CompleteParams.CustomClaims).
	CustomClaims map[string]any

	fromEnded bool // CompleteParams.fromEnded
}

// CompleteEmail finishes an email login inside the caller's transaction:
// deleted members are refused, the address becomes verified (and a pending
// or invited member active), factors of a presented IST carry over, and
// Complete decides the outcome.
func (s *Service) CompleteEmail(ctx context.Context, q store.Querier, l EmailLogin) (*AuthResponse, error) {
	m := l.Member
	if m.Status == organization.StatusDeleted {
		return nil, apierr.New(apierr.InactiveMember)
	}
	ended, err := s.orgs.MarkEmailVerified(ctx, q, m)
	if err != nil {
		return nil, err
	}
	prior, err := s.PriorFactors(ctx, q, l.Project, l.IST, l.Organization.OrganizationID, m.MemberID, m.EmailAddress)
	if err != nil {
		return nil, err
	}
	return s.Complete(ctx, q, CompleteParams{Project: l.Project, Organization: l.Organization, Member: m,
		DurationMinutes: l.DurationMinutes, MethodID: m.EmailID, Prior: prior, From: l.From, fromEnded: l.fromEnded,
		CustomClaims: l.CustomClaims, SessionsEnded: ended,
		Factor: Factor{DeliveryMethod: "email", Type: l.FactorType,
			EmailFactor: &EmailFactor{EmailID: m.EmailID, EmailAddress: m.EmailAddress}}})
}
