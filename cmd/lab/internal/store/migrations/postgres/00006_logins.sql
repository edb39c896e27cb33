-- The browsers signed in, as SQLite's step 6.
-- +goose Up
CREATE TABLE logins (
	id         text PRIMARY KEY,
	token      text NOT NULL,
	created_ns bigint NOT NULL,
	expires_ns bigint NOT NULL
);
CREATE INDEX logins_created ON logins (created_ns DESC);
