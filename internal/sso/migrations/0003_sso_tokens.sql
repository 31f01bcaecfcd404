-- The provider tokens of an OIDC login (access, refresh and ID tokens,
-- scopes, expiry) on the member's registration, sealed at rest for the row
-- (package atrest, app.SealedColumns; sso.TokensColumn). '' for SAML
-- registrations and for OIDC ones from before tokens were kept.
ALTER TABLE sso_registrations ADD COLUMN tokens TEXT NOT NULL DEFAULT '';
