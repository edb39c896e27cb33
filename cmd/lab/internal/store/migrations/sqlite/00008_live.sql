-- The live settings of the sessions that have clients, shared by the labs
-- that serve one database (package live's Bus: only PostgreSQL's uses it;
-- SQLite has the table so that a step means the same schema in both).
-- +goose Up
CREATE TABLE live_sessions (
	id       TEXT PRIMARY KEY,
	rev      INTEGER NOT NULL,
	seq      INTEGER NOT NULL,
	settings TEXT NOT NULL
) STRICT;
