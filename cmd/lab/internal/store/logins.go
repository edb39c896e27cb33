package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Logins are the browsers signed in to a lab served with an access token
// (package access): a sign-in is a random id in the browser's cookie. The
// store keeps a hash of that id, never the id, so a copy of the database
// holds no cookie that works, and the hash of the token the sign-in was
// made under, so a new token revokes every sign-in of the old one.
type Logins interface {
	// SaveLogin stores l, and forgets the sign-ins expired by l.Created
	// and, beyond MaxLogins, the oldest.
	SaveLogin(l Login) error
	// LoadLogin returns the sign-in with id (a hash), or ErrLoginNotFound.
	LoadLogin(id string) (Login, error)
	// DeleteLogin forgets the sign-in with id (a hash), if there is one.
	DeleteLogin(id string) error
	// PruneLogins forgets every sign-in made under another token than
	// token (a hash), or expired at now, and returns how many.
	PruneLogins(token string, now time.Time) (int, error)
}

// Login is a browser's sign-in.
type Login struct {
	ID      string    // a hash of the id in the browser's cookie
	Token   string    // a hash of the access token it was made under
	Created time.Time // when the browser signed in
	Expires time.Time // when the sign-in ends
}

// MaxLogins is how many sign-ins a lab keeps: a studio's browsers many
// times over; the oldest go first.
const MaxLogins = 10000

// ErrLoginNotFound is LoadLogin's error for an id it does not hold.
var ErrLoginNotFound = errors.New("login not found")

// Sign-ins live in table logins (migration step 6).

// SaveLogin stores l, and forgets the expired and the oldest beyond
// MaxLogins.
func (st *DB) SaveLogin(l Login) (err error) {
	defer classify(&err)
	st.mu.Lock()
	defer st.mu.Unlock()
	tx, err := st.db.Begin()
	if err != nil {
		return fmt.Errorf("save login: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO logins (id, token, created_ns, expires_ns) VALUES (?, ?, ?, ?)`,
		l.ID, l.Token, l.Created.UnixNano(), l.Expires.UnixNano()); err != nil {
		return fmt.Errorf("save login: %w", err)
	}
	if _, err := tx.Exec(`DELETE FROM logins WHERE expires_ns <= ?
		OR id NOT IN (SELECT id FROM logins ORDER BY created_ns DESC LIMIT ?)`, l.Created.UnixNano(), MaxLogins); err != nil {
		return fmt.Errorf("save login: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save login: %w", err)
	}
	return nil
}

// LoadLogin returns the sign-in with id.
func (st *DB) LoadLogin(id string) (Login, error) {
	l := Login{ID: id}
	var created, expires int64
	err := st.db.QueryRow(`SELECT token, created_ns, expires_ns FROM logins WHERE id = ?`, id).Scan(&l.Token, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return Login{}, ErrLoginNotFound
	}
	if err != nil {
		return Login{}, fmt.Errorf("load login: %w", err)
	}
	l.Created, l.Expires = time.Unix(0, created).UTC(), time.Unix(0, expires).UTC()
	return l, nil
}

// DeleteLogin forgets the sign-in with id.
func (st *DB) DeleteLogin(id string) (err error) {
	defer classify(&err)
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, err := st.db.Exec(`DELETE FROM logins WHERE id = ?`, id); err != nil {
		return fmt.Errorf("delete login: %w", err)
	}
	return nil
}

// PruneLogins forgets the sign-ins of other tokens than token, and the
// expired.
func (st *DB) PruneLogins(token string, now time.Time) (_ int, err error) {
	defer classify(&err)
	st.mu.Lock()
	defer st.mu.Unlock()
	res, err := st.db.Exec(`DELETE FROM logins WHERE token <> ? OR expires_ns <= ?`, token, now.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("prune logins: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}
