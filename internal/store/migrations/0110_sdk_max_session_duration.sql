-- sdk_max_session_duration_minutes: the longest session_duration_minutes
-- the SDK face (public token and session cookie) accepts, the API family's
-- "maximum session duration" of its frontend SDK settings. The backend
-- face (project secret) keeps the full 5..527040. 1440 (a day) covers the
-- widget's default of 60 and every duration the widget, the demo and the
-- e2e harness configure, while a browser script can no longer stretch a
-- session to a year.
ALTER TABLE projects ADD COLUMN sdk_max_session_duration_minutes INTEGER NOT NULL DEFAULT 1440;
