-- refresh_until leases the refresh of a registration's access token (the
-- backend's oauth_providers route refreshes an expiring one): the replica
-- that sets it into the future refreshes, and the others wait for its
-- answer instead of spending the refresh token too (Module.refreshed).
-- Milliseconds since the epoch; 0 when no refresh is under way.
ALTER TABLE member_oauth_registrations ADD COLUMN refresh_until BIGINT NOT NULL DEFAULT 0;
