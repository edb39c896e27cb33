-- The custom presets designers save from the lab page or import (see
-- presets.go): a preset file's fields, the settings as JSON.
-- +goose Up
CREATE TABLE presets (
	name       TEXT PRIMARY KEY,
	title      TEXT NOT NULL,
	doc        TEXT NOT NULL,
	settings   TEXT NOT NULL,
	created_ns INTEGER NOT NULL
) STRICT;
