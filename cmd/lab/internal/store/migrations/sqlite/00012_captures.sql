-- Game captures being streamed (package capture, captures.go): one row a
-- capture, counting what is durably stored, and one row a batch, its
-- updates as one compressed block in the traces' block layout. A capture
-- that is ended becomes a row of traces and leaves these tables.
-- +goose Up
CREATE TABLE captures (
	id         TEXT PRIMARY KEY,
	session    TEXT NOT NULL,
	name       TEXT NOT NULL UNIQUE,
	engine     TEXT NOT NULL,
	version    TEXT NOT NULL,
	client     TEXT NOT NULL,
	rate       REAL NOT NULL,
	time_base  TEXT NOT NULL,
	tick_rate  REAL NOT NULL,
	created_ns INTEGER NOT NULL,
	batches    INTEGER NOT NULL,
	updates    INTEGER NOT NULL,
	dropped    INTEGER NOT NULL,
	bytes      INTEGER NOT NULL
) STRICT;
CREATE INDEX captures_session ON captures (session);
CREATE TABLE capture_batches (
	capture TEXT NOT NULL REFERENCES captures (id) ON DELETE CASCADE,
	batch   INTEGER NOT NULL,
	updates INTEGER NOT NULL,
	data    BLOB NOT NULL,
	PRIMARY KEY (capture, batch)
) STRICT;
