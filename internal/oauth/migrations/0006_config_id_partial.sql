-- 0002's unique index on config_id covered the rows a replica of the
-- release before it writes during a rolling deploy, which leave config_id
-- at its default '': the second such configuration failed on the first's
-- ''. Only real keys need be unique; MigrateSecrets gives the others
-- theirs at the next start. Nothing upserts on config_id (an ON CONFLICT
-- target would have to repeat the WHERE), and the table, a few rows per
-- project, is read by its primary key (project_id, provider): a lookup by
-- config_id that the planner cannot prove non-empty loses little.
DROP INDEX oauth_provider_configs_config_id;
CREATE UNIQUE INDEX oauth_provider_configs_config_id ON oauth_provider_configs(config_id) WHERE config_id <> '';
