-- Whether an M2M client's current secret was chosen by the customer
-- (create's client_secret) rather than generated (256 random bits, as
-- every rotation's is). A chosen one may be guessable, so the token
-- endpoint checks the address's failure allowance before it; a generated
-- one is checked first and always passes when right. Clients created
-- before this column may hold chosen secrets, and nothing tells which:
-- they count as chosen, the guarded side, until a rotation completes.
ALTER TABLE m2m_clients ADD COLUMN secret_chosen BOOLEAN NOT NULL DEFAULT TRUE;
