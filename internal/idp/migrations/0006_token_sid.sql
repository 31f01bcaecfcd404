-- The sid of the member session a token family was authorized in (an ID
-- token's sid claim, kept for the ID tokens its refreshes issue); '' when
-- the authorization had no session (the backend face naming the member)
-- or predates the claim.
ALTER TABLE idp_tokens ADD COLUMN sid TEXT NOT NULL DEFAULT '';
