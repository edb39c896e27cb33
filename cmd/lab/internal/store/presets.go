package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"interplab/engine"
)

// Custom presets live in table presets (migration step 5), one row a
// preset, the settings as JSON (every key, as a session revision's).

// SavePreset stores p; a name in use is ErrPresetExists.
func (st *DB) SavePreset(p CustomPreset, now time.Time) (err error) {
	defer classify(&err)
	if p.Name == "" {
		return &engine.FieldError{Field: "name", Value: "", Allowed: "a name"}
	}
	if err := p.Settings.Validate(); err != nil {
		return err
	}
	settings, err := json.Marshal(p.Settings)
	if err != nil {
		return fmt.Errorf("save preset %s: %w", p.Name, err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	res, err := st.db.Exec(`INSERT INTO presets (name, title, doc, settings, created_ns) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (name) DO NOTHING`, p.Name, p.Title, p.Doc, string(settings), now.UnixNano())
	if err != nil {
		return fmt.Errorf("save preset %s: %w", p.Name, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("save preset %s: %w", p.Name, err)
	} else if n == 0 {
		return ErrPresetExists
	}
	return nil
}

// ListPresets returns the custom presets by name. A preset whose settings
// cannot be read is left out of the list (LoadPreset names the problem).
func (st *DB) ListPresets() ([]CustomPreset, error) {
	rows, err := st.db.Query(`SELECT name, title, doc, settings, created_ns FROM presets ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list presets: %w", err)
	}
	defer rows.Close()
	var out []CustomPreset
	for rows.Next() {
		p, err := scanPreset(rows)
		if errors.Is(err, ErrDamaged) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list presets: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// LoadPreset returns the custom preset called name.
func (st *DB) LoadPreset(name string) (CustomPreset, error) {
	p, err := scanPreset(st.db.QueryRow(`SELECT name, title, doc, settings, created_ns FROM presets WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return CustomPreset{}, ErrPresetNotFound
	}
	return p, err
}

// DeletePreset removes the custom preset called name.
func (st *DB) DeletePreset(name string) (err error) {
	defer classify(&err)
	st.mu.Lock()
	defer st.mu.Unlock()
	res, err := st.db.Exec(`DELETE FROM presets WHERE name = ?`, name)
	if err != nil {
		return fmt.Errorf("delete preset %s: %w", name, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("delete preset %s: %w", name, err)
	} else if n == 0 {
		return ErrPresetNotFound
	}
	return nil
}

// scanPreset reads a row of presets; its settings start from the defaults
// so that a parameter added after it was saved takes its default.
func scanPreset(row interface{ Scan(...any) error }) (CustomPreset, error) {
	var p CustomPreset
	var settings string
	var ns int64
	if err := row.Scan(&p.Name, &p.Title, &p.Doc, &settings, &ns); err != nil {
		return CustomPreset{}, err
	}
	p.Settings = engine.Defaults()
	if err := json.Unmarshal([]byte(settings), &p.Settings); err != nil {
		return CustomPreset{}, fmt.Errorf("preset %s is %w: its settings cannot be read (%v): delete it and import it again", p.Name, ErrDamaged, err)
	}
	p.Created = time.Unix(0, ns).UTC()
	return p, nil
}
