package live

import (
	"encoding/json"
	"errors"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// Several labs (replicas behind a proxy) may serve one database; each has
// a hub, and a session's clients may be on any of them. A Bus shares the
// sessions' live state between their hubs (PGBus does it through
// PostgreSQL): the state itself is in the database, every change is made
// there in a transaction and published to every hub in the order the
// changes committed, so the hubs apply the same changes in the same order
// and agree. A change is acknowledged to the client that made it (the
// config with its "from") only once it is committed: a hub that dies
// loses no acknowledged change.
//
// Games' live packets are not state: a hub records and sends on its own
// games' packets at once, and relays them through the bus (Relay) to the
// other hubs, which record them and send them on as they come.
//
// A hub without a bus (New) keeps the live state in memory, as one lab on
// SQLite does.
//
// Unsaved live changes still end when a session's last client leaves, on
// every replica: the bus knows which replicas have clients on a session,
// and the first client of a session nobody else serves starts from the
// latest revision.

// Shared is a session's shared live state.
type Shared struct {
	Rev      int             // the saved revision the live settings started from
	Seq      int64           // counts the changes: each change's is one more
	Settings engine.Settings // the live settings
}

// Event is a change of a session's shared state, as a bus publishes it.
type Event struct {
	Session string `json:"s"`
	Kind    string `json:"k"` // set, saved, reset, gone; resync (Session ""): changes may have been missed, reload every room
	Seq     int64  `json:"q,omitempty"`
	Rev     int    `json:"r,omitempty"`
	Name    string `json:"n,omitempty"` // a set's parameter
	From    string `json:"f,omitempty"` // a set's client
	// Settings are the state after the change; nil when they did not fit
	// the message: the hub reloads them (Bus.Load).
	Settings *engine.Settings `json:"st,omitempty"`
	// Packets are a packets event's: games' live packets, as their lab
	// stamped and relayed them.
	Packets []wsPacketMsg `json:"p,omitempty"`
}

// Bus shares live state between the hubs on one database.
type Bus interface {
	// Tag is this hub's mark, which makes its client ids unique among
	// every hub's.
	Tag() string
	// Join notes that this hub has a client on session id, and returns
	// the session's state: the latest revision (from latest, which also
	// says when the session does not exist) if no other hub has clients
	// on it, else the state they share.
	Join(id string, latest func() (store.Revision, error)) (Shared, error)
	// Leave notes that this hub's last client on id has gone.
	Leave(id string)
	// Set changes session id's state by apply, in one transaction, and
	// publishes the change as a set from client from. apply's error is
	// returned as is, and nothing changes.
	Set(id, name, from string, apply func(engine.Settings) (engine.Settings, error)) error
	// Saved merges a save (r over prev, see applySaved) into the state of
	// a session with clients, and publishes it.
	Saved(prev, r store.Revision) error
	// Gone publishes that session id was deleted and forgets its state.
	Gone(id string) error
	// Live returns session id's state if some hub has clients on it.
	Live(id string) (Shared, bool, error)
	// Load returns session id's state, if it has any.
	Load(id string) (Shared, bool, error)
	// Events are the published changes, every hub's own included, in
	// the order they committed.
	Events() <-chan Event
	// Relay sends a game's live packet of session id, as this hub
	// recorded it, to the other hubs (a packets event), soon and without
	// waiting: like a viewer, another hub may miss packets when it falls
	// behind.
	Relay(id string, m wsPacketMsg)
}

// errNoLive is a change to a session that has no shared state (its last
// client left, or it was deleted, meanwhile).
var errNoLive = errors.New("the session has no live state: reconnect")

// eventPayload encodes e for a notification of at most max bytes: without
// its settings if they do not fit.
func eventPayload(e Event, most int) (string, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	if len(b) <= most {
		return string(b), nil
	}
	e.Settings = nil
	b, err = json.Marshal(e)
	return string(b), err
}
