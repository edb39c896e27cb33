-- Sessions and their append-only revisions. sessions caches the latest
-- revision's name (and its lower-case fold, for search) so that listing
-- does not read every revision.
-- +goose Up
CREATE TABLE sessions (
	id         TEXT PRIMARY KEY,
	created_ns INTEGER NOT NULL,
	updated_ns INTEGER NOT NULL,
	deleted_ns INTEGER,
	latest     INTEGER NOT NULL,
	name       TEXT NOT NULL,
	name_fold  TEXT NOT NULL
) STRICT;
CREATE TABLE revisions (
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	rev        INTEGER NOT NULL CHECK (rev >= 1),
	name       TEXT NOT NULL,
	notes      TEXT NOT NULL,
	settings   TEXT NOT NULL,
	created_ns INTEGER NOT NULL,
	PRIMARY KEY (session_id, rev)
) STRICT, WITHOUT ROWID;
CREATE INDEX sessions_updated ON sessions (updated_ns DESC);
