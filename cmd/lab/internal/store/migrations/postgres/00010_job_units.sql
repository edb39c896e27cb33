-- Studies in units of work (package jobs' Queue): each unit of a study,
-- numbered in the order its plan made them, what it runs and its result
-- once a worker has finished it, and river's job id; and the plan's state
-- between batches of units (a tuning's search).
-- +goose Up
ALTER TABLE jobs ADD COLUMN plan text;
CREATE TABLE job_units (
	job      text NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	n        bigint NOT NULL,
	unit     text NOT NULL,
	result   text,
	queue_id bigint,
	PRIMARY KEY (job, n)
);
