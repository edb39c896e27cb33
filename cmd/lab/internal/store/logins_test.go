package store

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// Sign-ins are kept across a reopen, forgotten when signed out, expired,
// or made under another token, and at most MaxLogins are kept.
func TestLogins(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
		st := openTestStore(t, dir, t0)
		day := 24 * time.Hour
		for _, l := range []Login{
			{ID: "a", Token: "t1", Created: t0, Expires: t0.Add(30 * day)},
			{ID: "b", Token: "t1", Created: t0.Add(time.Hour), Expires: t0.Add(time.Hour + 30*day)},
			{ID: "old", Token: "t0", Created: t0, Expires: t0.Add(30 * day)},
			{ID: "short", Token: "t1", Created: t0, Expires: t0.Add(day)},
		} {
			if err := st.SaveLogin(l); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.SaveLogin(Login{ID: "a", Token: "t1", Created: t0, Expires: t0}); err == nil {
			t.Error("a second sign-in with the same id was saved")
		}
		st.Close()
		st = openTestStore(t, dir, t0)
		if l, err := st.LoadLogin("b"); err != nil || l.Token != "t1" || !l.Created.Equal(t0.Add(time.Hour)) || !l.Expires.Equal(t0.Add(time.Hour+30*day)) {
			t.Errorf("LoadLogin(b) after a reopen = %+v, %v", l, err)
		}
		if err := st.DeleteLogin("b"); err != nil {
			t.Fatal(err)
		}
		if _, err := st.LoadLogin("b"); !errors.Is(err, ErrLoginNotFound) {
			t.Errorf("LoadLogin of a deleted sign-in = %v, want ErrLoginNotFound", err)
		}
		if err := st.DeleteLogin("never"); err != nil {
			t.Errorf("DeleteLogin of none = %v, want nil", err)
		}
		if n, err := st.PruneLogins("t1", t0.Add(2*day)); err != nil || n != 2 {
			t.Errorf("PruneLogins = %d, %v; want 2 (another token's, an expired one)", n, err)
		}
		for id, want := range map[string]error{"a": nil, "old": ErrLoginNotFound, "short": ErrLoginNotFound} {
			if _, err := st.LoadLogin(id); !errors.Is(err, want) {
				t.Errorf("LoadLogin(%s) after the prune = %v, want %v", id, err, want)
			}
		}

		// MaxLogins more, in one transaction (a save each would take minutes
		// of fsync), then one save that prunes.
		tx, err := st.db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for i := range MaxLogins {
			created := t0.Add(time.Duration(i+1) * time.Second)
			if _, err := tx.Exec(`INSERT INTO logins (id, token, created_ns, expires_ns) VALUES (?, 't1', ?, ?)`,
				fmt.Sprint("n", i), created.UnixNano(), created.Add(30*day).UnixNano()); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		newest := t0.Add(day)
		if err := st.SaveLogin(Login{ID: "newest", Token: "t1", Created: newest, Expires: newest.Add(30 * day)}); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := st.db.QueryRow(`SELECT count(*) FROM logins`).Scan(&n); err != nil || n != MaxLogins {
			t.Errorf("%d sign-ins kept, %v; want %d", n, err, MaxLogins)
		}
		if _, err := st.LoadLogin("a"); !errors.Is(err, ErrLoginNotFound) {
			t.Errorf("the oldest sign-in beyond MaxLogins: %v, want forgotten", err)
		}
	})
}
