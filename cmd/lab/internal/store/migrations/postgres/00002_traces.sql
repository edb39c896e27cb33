-- Recorded traces (see traces.go), as SQLite's step 2.
-- +goose Up
CREATE TABLE traces (
	name       text PRIMARY KEY,
	created_ns bigint NOT NULL,
	format     text NOT NULL,
	packets    bigint NOT NULL CHECK (packets >= 1),
	entities   bigint NOT NULL CHECK (entities >= 1),
	span       double precision NOT NULL,
	data       bytea NOT NULL
);
