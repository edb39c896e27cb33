-- The browsers signed in to a lab served with a token (see logins.go):
-- hashes of their cookies' ids and of the token.
-- +goose Up
CREATE TABLE logins (
	id         TEXT PRIMARY KEY,
	token      TEXT NOT NULL,
	created_ns INTEGER NOT NULL,
	expires_ns INTEGER NOT NULL
) STRICT;
CREATE INDEX logins_created ON logins (created_ns DESC);
