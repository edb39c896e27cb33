-- What each trace measures (TraceInfo.Network as JSON, and MaxSpeed), so
-- the traces page lists them without decoding every trace. NULL for traces
-- saved before; Open fills them in.
-- +goose Up
ALTER TABLE traces ADD COLUMN network TEXT;
ALTER TABLE traces ADD COLUMN max_speed REAL;
