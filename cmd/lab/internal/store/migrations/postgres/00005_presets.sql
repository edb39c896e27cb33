-- The custom presets, as SQLite's step 5.
-- +goose Up
CREATE TABLE presets (
	name       text PRIMARY KEY,
	title      text NOT NULL,
	doc        text NOT NULL,
	settings   text NOT NULL,
	created_ns bigint NOT NULL
);
