-- What each trace measures, as SQLite's step 3.
-- +goose Up
ALTER TABLE traces ADD COLUMN network text;
ALTER TABLE traces ADD COLUMN max_speed double precision;
