-- Studies in units of work (package jobs' Queue, PostgreSQL's only; SQLite
-- has the same schema so that a step means the same in both): each unit of
-- a study, numbered in the order its plan made them, what it runs and its
-- result once a worker has finished it, and river's job id; and the plan's
-- state between batches of units (a tuning's search).
-- +goose Up
ALTER TABLE jobs ADD COLUMN plan TEXT;
CREATE TABLE job_units (
	job      TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	n        INTEGER NOT NULL,
	unit     TEXT NOT NULL,
	result   TEXT,
	queue_id INTEGER,
	PRIMARY KEY (job, n)
) STRICT;
