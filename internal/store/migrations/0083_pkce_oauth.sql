-- pkce_required_for_oauth: OAuth starts and One Tap submits must carry a
-- PKCE code challenge (bootstrap pkce_required_for_oauth), as
-- pkce_required_for_sso does for SSO.
ALTER TABLE projects ADD COLUMN pkce_required_for_oauth BOOLEAN NOT NULL DEFAULT FALSE;
