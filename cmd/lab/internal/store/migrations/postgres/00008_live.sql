-- The live settings of the sessions that have clients, shared by the labs
-- that serve one database (package live's Bus): the settings, the
-- revision they started from, and seq, counting the changes.
-- +goose Up
CREATE TABLE live_sessions (
	id       text PRIMARY KEY,
	rev      bigint NOT NULL,
	seq      bigint NOT NULL,
	settings text NOT NULL
);
