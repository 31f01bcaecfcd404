-- A session's custom claims (session_custom_claims on the backend's
-- session check and logins): a JSON object, at most four kilobytes
-- (session.MergeClaims), shown in member_session.custom_claims and as
-- top-level claims of the session JWT. '{}' is none.
ALTER TABLE member_sessions ADD COLUMN custom_claims TEXT NOT NULL DEFAULT '{}';
