package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Job records live in table jobs (migration step 4), one row a job: its
// spec and result as JSON text, as the job runner encoded them.

// SaveJob stores j, replacing the record of the same id, and keeps only
// the MaxJobs newest records.
func (st *DB) SaveJob(j Job) (err error) {
	defer classify(&err)
	var ended sql.NullInt64
	if !j.Ended.IsZero() {
		ended = sql.NullInt64{Int64: j.Ended.UnixNano(), Valid: true}
	}
	var result sql.NullString
	if j.Result != nil {
		result = sql.NullString{String: string(j.Result), Valid: true}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	tx, err := st.db.Begin()
	if err != nil {
		return fmt.Errorf("save job %s: %w", j.ID, err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO jobs (id, kind, state, error, done, total, spec, result, created_ns, ended_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET state = excluded.state, error = excluded.error, done = excluded.done,
			result = excluded.result, ended_ns = excluded.ended_ns`,
		j.ID, j.Kind, j.State, j.Error, j.Done, j.Total, string(j.Spec), result, j.Created.UnixNano(), ended); err != nil {
		return fmt.Errorf("save job %s: %w", j.ID, err)
	}
	if _, err := tx.Exec(`DELETE FROM jobs WHERE id NOT IN (SELECT id FROM jobs ORDER BY created_ns DESC LIMIT ?)`, MaxJobs); err != nil {
		return fmt.Errorf("save job %s: %w", j.ID, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save job %s: %w", j.ID, err)
	}
	return nil
}

// LoadJob returns the record of job id.
func (st *DB) LoadJob(id string) (Job, error) {
	j := Job{ID: id}
	var spec string
	var result sql.NullString
	var created int64
	var ended sql.NullInt64
	err := st.db.QueryRow(`SELECT kind, state, error, done, total, spec, result, created_ns, ended_ns FROM jobs WHERE id = ?`, id).
		Scan(&j.Kind, &j.State, &j.Error, &j.Done, &j.Total, &spec, &result, &created, &ended)
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, ErrJobNotFound
	}
	if err != nil {
		return Job{}, fmt.Errorf("load job %s: %w", id, err)
	}
	j.Spec, j.Created = []byte(spec), time.Unix(0, created).UTC()
	if result.Valid {
		j.Result = []byte(result.String)
	}
	if ended.Valid {
		j.Ended = time.Unix(0, ended.Int64).UTC()
	}
	return j, nil
}

// InterruptJobs marks the jobs recorded as running as interrupted at now.
func (st *DB) InterruptJobs(now time.Time) (_ int, err error) {
	defer classify(&err)
	st.mu.Lock()
	defer st.mu.Unlock()
	res, err := st.db.Exec(`UPDATE jobs SET state = 'interrupted', ended_ns = ?,
		error = 'the lab stopped while it ran: start it again' WHERE state = 'running'`, now.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("interrupt jobs: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}
