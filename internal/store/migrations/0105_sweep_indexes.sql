-- The sweeper's batches select by expiry (sweeper.Expired); without an
-- index each batch of 1,000 rescanned the whole table. rate_limits'
-- primary key leads with bucket, so window_start had none either.
-- (attempt_counters, flow_tickets and password_resets have theirs since
-- 0010, 0050 and 0090.)
CREATE INDEX rate_limits_window ON rate_limits(window_start);
CREATE INDEX discovery_magic_links_expires ON discovery_magic_links(expires_at);
CREATE INDEX discovery_email_otps_expires ON discovery_email_otps(expires_at);
CREATE INDEX sms_otps_expires ON sms_otps(expires_at);
CREATE INDEX email_update_otps_expires ON email_update_otps(expires_at);
CREATE INDEX totp_registrations_expires ON totp_registrations(expires_at);
