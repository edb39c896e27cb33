-- The records of sweeps, tunings and population runs, as SQLite's step 4.
-- +goose Up
CREATE TABLE jobs (
	id         text PRIMARY KEY,
	kind       text NOT NULL,
	state      text NOT NULL,
	error      text NOT NULL,
	done       bigint NOT NULL,
	total      bigint NOT NULL,
	spec       text NOT NULL,
	result     text,
	created_ns bigint NOT NULL,
	ended_ns   bigint
);
CREATE INDEX jobs_created ON jobs (created_ns DESC);
