-- What each factor of a session or IST proved beyond its organization
-- (session.Factor.Carries): a JSON array in the order of
-- authentication_factors, kept apart from it because those are the wire
-- objects answers show. Today an entry records the address an OAuth
-- provider verified at the login. Rows from before hold '[]', which pairs
-- with no factor: they prove nothing.
ALTER TABLE member_sessions ADD COLUMN factor_proofs TEXT NOT NULL DEFAULT '[]';
ALTER TABLE intermediate_sessions ADD COLUMN factor_proofs TEXT NOT NULL DEFAULT '[]';
