-- Sessions and their append-only revisions, as SQLite's step 1. Settings
-- stay text, not jsonb: they are kept byte for byte as saved, and a
-- revision that does not parse is reported as damaged, not refused here.
--
-- The store's queries are shared with SQLite: instr, json_valid and
-- json_type are SQLite's functions, defined here the way the store uses
-- them (json_type names a string 'text', as SQLite does).
-- +goose Up
CREATE TABLE sessions (
	id         text PRIMARY KEY,
	created_ns bigint NOT NULL,
	updated_ns bigint NOT NULL,
	deleted_ns bigint,
	latest     bigint NOT NULL,
	name       text NOT NULL,
	name_fold  text NOT NULL
);
CREATE TABLE revisions (
	session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	rev        bigint NOT NULL CHECK (rev >= 1),
	name       text NOT NULL,
	notes      text NOT NULL,
	settings   text NOT NULL,
	created_ns bigint NOT NULL,
	PRIMARY KEY (session_id, rev)
);
CREATE INDEX sessions_updated ON sessions (updated_ns DESC);

CREATE FUNCTION instr(haystack text, needle text) RETURNS integer
	LANGUAGE sql IMMUTABLE STRICT AS 'SELECT strpos(haystack, needle)';

-- +goose StatementBegin
CREATE FUNCTION json_valid(doc text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	PERFORM doc::json;
	RETURN doc IS NOT NULL;
EXCEPTION WHEN others THEN
	RETURN false;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION json_type(doc text, path text DEFAULT '$') RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	v json;
	t text;
BEGIN
	v := doc::json;
	IF path <> '$' THEN
		v := v -> substr(path, 3); -- '$.key': one key deep is all the store asks
	END IF;
	t := json_typeof(v);
	RETURN CASE t WHEN 'string' THEN 'text' WHEN 'number' THEN 'real' ELSE t END;
EXCEPTION WHEN others THEN
	RETURN NULL;
END $$;
-- +goose StatementEnd
