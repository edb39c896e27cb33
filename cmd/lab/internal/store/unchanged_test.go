package store

import (
	"testing"
	"time"

	"interplab/engine"
)

// TestStoreSaveWithoutChangeKeepsTheRevision: a save whose name, notes and
// settings are the latest revision's makes no new revision; it returns the
// latest one, and the session's history and time stay as they were.
func TestStoreSaveWithoutChangeKeepsTheRevision(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		st := openTestStore(t, dir, storeT0)
		r1, err := st.Create(testDraft("harbor", nil), storeT0)
		if err != nil {
			t.Fatal(err)
		}
		same := testDraft("harbor", nil)
		got, err := st.Save(r1.ID, same, storeT0.Add(time.Minute))
		if err != nil {
			t.Fatalf("Save of the same draft: %v", err)
		}
		if got.Rev != 1 || !got.Time.Equal(r1.Time) {
			t.Errorf("Save of the same draft = rev %d at %v, want rev 1 as saved at %v", got.Rev, got.Time, r1.Time)
		}
		sess, err := st.Get(r1.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(sess.History) != 1 || !sess.Time.Equal(r1.Time) {
			t.Errorf("after an unchanged save: %d revisions, the latest at %v; want 1, at %v", len(sess.History), sess.Time, r1.Time)
		}
		list, err := st.List("", false)
		if err != nil || len(list) != 1 || !list[0].Updated.Equal(r1.Time) {
			t.Errorf("List after an unchanged save = %+v, %v; want the session updated at %v", list, err, r1.Time)
		}
		// Any change is a revision: settings, notes, name.
		for i, d := range []Draft{
			testDraft("harbor", func(s *engine.Settings) { s.Loss = 0.01 }),
			{Name: "harbor", Notes: "other notes", Settings: engine.Defaults()},
			{Name: "harbor 2", Notes: "other notes", Settings: engine.Defaults()},
		} {
			r, err := st.Save(r1.ID, d, storeT0.Add(time.Duration(i+2)*time.Minute))
			if err != nil || r.Rev != i+2 {
				t.Errorf("change %d: Save = rev %d, %v; want rev %d", i, r.Rev, err, i+2)
			}
		}
	})
}

// TestStoreUnchangedSaveAfterDamagedLatest: when the latest revision is
// damaged, the session opens at the latest readable one; saving that
// revision's own values is a new revision after the damaged one, so the
// session's latest can be read again (an unchanged save is kept only when
// the latest is the revision it repeats).
func TestStoreUnchangedSaveAfterDamagedLatest(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		st := openTestStore(t, dir, storeT0)
		r1, err := st.Create(testDraft("harbor", nil), storeT0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Save(r1.ID, testDraft("harbor", func(s *engine.Settings) { s.Loss = 0.01 }), storeT0); err != nil {
			t.Fatal(err)
		}
		damageRevision(t, dir, r1.ID, 2)
		got, err := st.Save(r1.ID, testDraft("harbor", nil), storeT0.Add(time.Minute))
		if err != nil || got.Rev != 3 {
			t.Fatalf("Save of revision 1's values over a damaged revision 2 = rev %d, %v; want rev 3", got.Rev, err)
		}
		sess, err := st.Get(r1.ID)
		if err != nil || sess.Rev != 3 || sess.Latest != 3 {
			t.Errorf("Get after the save = rev %d of %d, %v; want rev 3 of 3", sess.Rev, sess.Latest, err)
		}
	})
}
