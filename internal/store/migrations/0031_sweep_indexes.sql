-- The sweeper deletes by expiry and age; these keep its scans cheap on the
-- tables that grow with traffic.
CREATE INDEX member_sessions_expires ON member_sessions(expires_at);
CREATE INDEX intermediate_sessions_expires ON intermediate_sessions(expires_at);
CREATE INDEX magic_links_expires ON magic_links(expires_at);
CREATE INDEX email_otps_expires ON email_otps(expires_at);
CREATE INDEX events_created ON events(created_at);
