package live

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/pgtest"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// Two labs on one database, each with its hub and bus: a session's clients
// on either see one live state. A set on A reaches B's viewer; a client
// joining on B starts from A's unsaved changes; a save made anywhere
// reaches both; when the last client on every lab has left, the next
// starts from the latest revision.
func TestLiveAcrossLabs(t *testing.T) {
	url := pgtest.New(t)
	st, err := store.OpenPostgres(context.Background(), url, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r1, err := st.Create(store.Draft{Name: "shared", Settings: engine.Defaults()}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	lab := func() (*Hub, string) {
		h := NewShared(st, time.Now, pgBus(t, url))
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeWS(w, r, strings.TrimPrefix(r.URL.Path, "/ws/"))
		}))
		t.Cleanup(func() {
			h.Close()
			srv.Close()
		})
		return h, "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws/" + r1.ID
	}
	hubA, a := lab()
	hubB, b := lab()

	editor := dial(t, a)
	viewer := dial(t, b)
	send(t, editor, "seed", 41)
	if m := read(t, editor); m.Type != "config" || m.Config.Settings.Seed != 41 {
		t.Fatalf("editor on A got %+v, want its acknowledgement (config, seed 41)", m)
	}
	if m := read(t, viewer); m.Type != "set" || m.Name != "seed" {
		t.Fatalf("viewer on B got %+v, want A's set of seed", m)
	}
	if m := read(t, viewer); m.Type != "config" || m.Config.Settings.Seed != 41 {
		t.Fatalf("viewer on B got %+v, want the config with seed 41", m)
	}

	// A newcomer on B starts from the live state, not the revision.
	late := dialConfig(t, b)
	if late.Config.Settings.Seed != 41 {
		t.Errorf("a client joining on B starts at seed %d, want A's unsaved 41", late.Config.Settings.Seed)
	}

	// A save on A (of the notes only) keeps the live change everywhere.
	r2, err := st.Update(r1.ID, time.Now(), func(prev store.Revision) (store.Draft, error) {
		return store.Draft{Name: prev.Name, Notes: "saved on A", Settings: prev.Settings}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	hubA.Saved(r1, r2)
	if m := read(t, viewer); m.Type != "config" || m.Config.Settings.Seed != 41 {
		t.Errorf("viewer on B after a notes save on A: %+v, want the config, live seed 41 kept", m)
	}
	if s, ok := hubA.Live(r1.ID); !ok || s.Seed != 41 {
		t.Errorf("Live on A = seed %d, %v; want 41, true", s.Seed, ok)
	}

	// A game's packet on A reaches B's viewer and B's live trace, as A
	// stamped it; A's editor saw it too (it is A's own client).
	sent := float64(time.Now().UnixNano()) / 1e9
	if err := editor.WriteMessage(websocket.TextMessage, []byte(`{"type":"packet","entity":3,"seq":1,"sent":`+
		strconv.FormatFloat(sent, 'f', -1, 64)+`,"pos":[1,2,0],"vel":[7,0,0]}`)); err != nil {
		t.Fatal(err)
	}
	for {
		if m := read(t, viewer); m.Type == "packet" {
			break
		}
	}
	rows, ok := hubB.LiveTrace(r1.ID)
	if !ok || len(rows) != 1 || rows[0].Entity != 3 || rows[0].Sent != sent || rows[0].Pos[1] != 2 || !(rows[0].Arrive >= sent) {
		t.Errorf("B's live trace = %+v, %v; want A's packet of entity 3, stamped by A", rows, ok)
	}

	// Everybody leaves: the unsaved change ends with them.
	for _, c := range []*websocket.Conn{editor, viewer, late.conn} {
		c.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, ok := hubA.Live(r1.ID); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the session is still live 5 s after its last client left")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if fresh := dialConfig(t, b); fresh.Config.Settings.Seed != engine.Defaults().Seed {
		t.Errorf("after everybody left, a client on B starts at seed %d, want the revision's %d", fresh.Config.Settings.Seed, engine.Defaults().Seed)
	}
}

// send sends a set of name to v.
func send(t *testing.T, c *websocket.Conn, name string, v int) {
	t.Helper()
	if err := c.WriteMessage(websocket.TextMessage, []byte(`{"type":"set","name":"`+name+`","value":`+strconv.Itoa(v)+`}`)); err != nil {
		t.Fatal(err)
	}
}

// connConfig is a connection and the config it got on connect.
type connConfig struct {
	conn *websocket.Conn
	testMsg
}

func dialConfig(t *testing.T, url string) connConfig {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return connConfig{c, read(t, c)}
}
