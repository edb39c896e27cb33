-- Game captures being streamed (package capture), as SQLite's step 12.
-- +goose Up
CREATE TABLE captures (
	id         text PRIMARY KEY,
	session    text NOT NULL,
	name       text NOT NULL UNIQUE,
	engine     text NOT NULL,
	version    text NOT NULL,
	client     text NOT NULL,
	rate       double precision NOT NULL,
	time_base  text NOT NULL,
	tick_rate  double precision NOT NULL,
	created_ns bigint NOT NULL,
	batches    bigint NOT NULL,
	updates    bigint NOT NULL,
	dropped    bigint NOT NULL,
	bytes      bigint NOT NULL
);
CREATE INDEX captures_session ON captures (session);
CREATE TABLE capture_batches (
	capture text NOT NULL REFERENCES captures (id) ON DELETE CASCADE,
	batch   bigint NOT NULL,
	updates bigint NOT NULL,
	data    bytea NOT NULL,
	PRIMARY KEY (capture, batch)
);
