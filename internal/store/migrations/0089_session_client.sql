-- The client that created a session: its address (as WithClientIP computes
-- it, honouring trusted proxies) and User-Agent, reported in the session
-- JWT's attributes claim as the API family does. Empty for sessions created
-- before this migration.
ALTER TABLE member_sessions ADD COLUMN ip_address TEXT NOT NULL DEFAULT '';
ALTER TABLE member_sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
