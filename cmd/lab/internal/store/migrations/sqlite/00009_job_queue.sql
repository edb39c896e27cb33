-- Studies on a queue (package jobs' Queue, PostgreSQL's only; SQLite has
-- the same schema so that a step means the same in both): who started a
-- job, whether somebody asked to cancel it, the attempt that runs it, and
-- its progress items in the order they finished, for every lab to read.
-- +goose Up
ALTER TABLE jobs ADD COLUMN client TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN cancel INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN queue_id INTEGER;
CREATE TABLE job_items (
	job  TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	n    INTEGER NOT NULL,
	item TEXT NOT NULL,
	PRIMARY KEY (job, n)
) STRICT;
