-- The records of sweeps, tunings and population runs (see jobs.go), so
-- their pages outlive the process.
-- +goose Up
CREATE TABLE jobs (
	id         TEXT PRIMARY KEY,
	kind       TEXT NOT NULL,
	state      TEXT NOT NULL,
	error      TEXT NOT NULL,
	done       INTEGER NOT NULL,
	total      INTEGER NOT NULL,
	spec       TEXT NOT NULL,
	result     TEXT,
	created_ns INTEGER NOT NULL,
	ended_ns   INTEGER
) STRICT;
CREATE INDEX jobs_created ON jobs (created_ns DESC);
