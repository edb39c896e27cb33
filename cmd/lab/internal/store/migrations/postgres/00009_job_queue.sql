-- Studies on a queue (package jobs' Queue): who started a job, whether
-- somebody asked to cancel it, the attempt that runs it, river's job id,
-- and its progress items in the order they finished, for every lab to read.
-- +goose Up
ALTER TABLE jobs ADD COLUMN client text NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN cancel boolean NOT NULL DEFAULT false;
ALTER TABLE jobs ADD COLUMN attempt bigint NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN queue_id bigint;
CREATE TABLE job_items (
	job  text NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	n    bigint NOT NULL,
	item text NOT NULL,
	PRIMARY KEY (job, n)
);
