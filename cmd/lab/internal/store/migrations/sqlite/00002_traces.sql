-- Recorded traces (see traces.go): the metadata a list shows, and the
-- packets as one compressed blob.
-- +goose Up
CREATE TABLE traces (
	name       TEXT PRIMARY KEY,
	created_ns INTEGER NOT NULL,
	format     TEXT NOT NULL,
	packets    INTEGER NOT NULL CHECK (packets >= 1),
	entities   INTEGER NOT NULL CHECK (entities >= 1),
	span       REAL NOT NULL,
	data       BLOB NOT NULL
) STRICT;
