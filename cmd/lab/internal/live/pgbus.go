package live

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// PGBus is the Bus of the labs on one PostgreSQL database (store step 8's
// table live_sessions): each change is a transaction that locks the
// session's row, changes it and NOTIFYs channel lab_live, which delivers
// the notifications of every lab in the order their transactions
// committed. Which labs have clients on a session is held in PostgreSQL's
// advisory locks, shared, one per session (class presenceClass): a lab
// that dies loses its locks with its connection, so a lab killed with -9
// stops counting at once.
type PGBus struct {
	pool   *pgxpool.Pool
	tag    string
	events chan Event
	ctx    context.Context
	stop   context.CancelFunc
	done   chan struct{}

	relay chan relayed // games' packets on their way to the other labs

	mu       sync.Mutex     // the presence connection's user
	presence *pgxpool.Conn  // holds this lab's presence locks
	joined   map[string]int // sessions this lab holds a presence lock on (count)
}

const (
	liveChannel   = "lab_live"
	presenceClass = 0x1ab1 // advisory lock class of a session's presence
	// maxPayload is what a notification carries at most (PostgreSQL's
	// limit is 8000 bytes); a change whose settings do not fit is
	// published without them, and the hubs reload the row.
	maxPayload = 7900
)

var _ Bus = (*PGBus)(nil)

// NewPGBus starts a bus on pool: it listens on lab_live until Close.
func NewPGBus(pool *pgxpool.Pool) (*PGBus, error) {
	var b [3]byte
	rand.Read(b[:])
	ctx, stop := context.WithCancel(context.Background())
	bus := &PGBus{pool: pool, tag: hex.EncodeToString(b[:]) + "-", events: make(chan Event, 4096),
		ctx: ctx, stop: stop, done: make(chan struct{}), joined: map[string]int{}, relay: make(chan relayed, relayBuffer)}
	listen, err := bus.listen()
	if err != nil {
		stop()
		return nil, fmt.Errorf("live sync: listen: %w", err)
	}
	go bus.run(listen)
	go bus.relayPackets()
	return bus, nil
}

// relayed is a packet on its way to the other labs.
type relayed struct {
	id string
	m  wsPacketMsg
}

// Relaying: packets wait at most relayWait to share a notification with
// the packets after them, at most relayBatch a notification (about 250
// bytes each, well under maxPayload); relayBuffer more are dropped.
const (
	relayWait   = 5 * time.Millisecond
	relayBatch  = 24
	relayBuffer = 8192
)

// Relay queues m for the other labs; a full queue drops it.
func (b *PGBus) Relay(id string, m wsPacketMsg) {
	select {
	case b.relay <- relayed{id, m}:
	default:
	}
}

// relayPackets publishes the queued packets, a session's packets that
// came together in one notification, until Close.
func (b *PGBus) relayPackets() {
	pending := map[string][]wsPacketMsg{}
	var flush <-chan time.Time
	send := func(id string) {
		e := Event{Session: id, Kind: "packets", Packets: pending[id]}
		delete(pending, id)
		payload, err := json.Marshal(e)
		if err == nil && len(payload) <= maxPayload {
			_, err = b.pool.Exec(b.ctx, `SELECT pg_notify($1, $2)`, liveChannel, string(payload))
		}
		if err != nil && b.ctx.Err() == nil {
			slog.Warn("live sync: relay packets", "session", id, "err", err)
		}
	}
	for {
		select {
		case <-b.ctx.Done():
			return
		case r := <-b.relay:
			pending[r.id] = append(pending[r.id], r.m)
			if len(pending[r.id]) >= relayBatch {
				send(r.id)
			}
			if flush == nil {
				flush = time.After(relayWait)
			}
		case <-flush:
			flush = nil
			for id := range pending {
				send(id)
			}
		}
	}
}

// Close stops listening and releases this lab's presence.
func (b *PGBus) Close() {
	b.stop()
	<-b.done
	b.mu.Lock()
	if b.presence != nil {
		b.presence.Hijack().Close(context.Background()) // and its locks go
		b.presence = nil
	}
	b.mu.Unlock()
}

func (b *PGBus) Tag() string          { return b.tag }
func (b *PGBus) Events() <-chan Event { return b.events }

// listen returns a connection listening on lab_live.
func (b *PGBus) listen() (*pgxpool.Conn, error) {
	c, err := b.pool.Acquire(b.ctx)
	if err != nil {
		return nil, err
	}
	if _, err := c.Exec(b.ctx, "LISTEN "+liveChannel); err != nil {
		c.Release()
		return nil, err
	}
	return c, nil
}

// run turns notifications into events until Close. A lost connection is
// reopened, and a resync event tells the hub it may have missed changes.
func (b *PGBus) run(c *pgxpool.Conn) {
	defer close(b.done)
	defer close(b.events)
	for {
		n, err := c.Conn().WaitForNotification(b.ctx)
		if err == nil {
			var e Event
			if err := json.Unmarshal([]byte(n.Payload), &e); err != nil {
				slog.Error("live sync: bad notification", "err", err)
				continue
			}
			select {
			case b.events <- e:
			case <-b.ctx.Done():
				c.Hijack().Close(context.Background())
				return
			}
			continue
		}
		c.Hijack().Close(context.Background())
		if b.ctx.Err() != nil {
			return
		}
		slog.Warn("live sync: lost the notification connection, reconnecting", "err", err)
		for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
			select {
			case <-b.ctx.Done():
				return
			case <-time.After(wait):
			}
			if c, err = b.listen(); err == nil {
				break
			}
		}
		select {
		case b.events <- Event{Kind: "resync"}:
		case <-b.ctx.Done():
			c.Hijack().Close(context.Background())
			return
		}
	}
}

// lockConn runs f on the presence connection, opening it if needed.
func (b *PGBus) lockConn(f func(c *pgxpool.Conn) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.presence == nil {
		c, err := b.pool.Acquire(b.ctx)
		if err != nil {
			return err
		}
		b.presence = c
	}
	err := f(b.presence)
	if err != nil && b.presence.Conn().IsClosed() {
		// The connection died and its locks with it: the other labs
		// now count this one out until its sessions' next clients.
		b.presence.Hijack()
		b.presence, b.joined = nil, map[string]int{}
	}
	return err
}

// Join takes this lab's presence on id (shared) and returns its state;
// if no other lab holds one, the state starts again from latest.
func (b *PGBus) Join(id string, latest func() (store.Revision, error)) (Shared, error) {
	r, err := latest()
	if err != nil {
		return Shared{}, err
	}
	ctx := b.ctx
	var sh Shared
	err = b.lockConn(func(c *pgxpool.Conn) error {
		var alone bool
		if err := c.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, presenceClass, id).Scan(&alone); err != nil {
			return err
		}
		if alone {
			// Nobody serves the session: its live state starts from the
			// latest revision, as after its last client left.
			var err error
			sh, err = b.reset(r)
			if err == nil {
				_, err = c.Exec(ctx, `SELECT pg_advisory_lock_shared($1, hashtext($2))`, presenceClass, id)
			}
			if _, uerr := c.Exec(ctx, `SELECT pg_advisory_unlock($1, hashtext($2))`, presenceClass, id); err == nil {
				err = uerr
			}
			if err == nil {
				b.joined[id]++
			}
			return err
		}
		if _, err := c.Exec(ctx, `SELECT pg_advisory_lock_shared($1, hashtext($2))`, presenceClass, id); err != nil {
			return err
		}
		b.joined[id]++
		var ok bool
		var err error
		if sh, ok, err = b.Load(id); err == nil && !ok {
			sh, err = b.reset(r) // its last lab died before it wrote the state
		}
		return err
	})
	return sh, err
}

// reset makes r the session's live state, one change after the one it
// had, and publishes it.
func (b *PGBus) reset(r store.Revision) (Shared, error) {
	sh := Shared{Rev: r.Rev, Settings: r.Settings}
	err := b.change(r.ID, func(tx pgx.Tx, old *Shared) (*Event, error) {
		if old != nil {
			sh.Seq = old.Seq + 1
		} else {
			sh.Seq = 1
		}
		return &Event{Session: r.ID, Kind: "reset", Seq: sh.Seq, Rev: sh.Rev, Settings: &sh.Settings}, nil
	}, true)
	return sh, err
}

// Leave releases this lab's presence on id; the last lab to leave
// forgets the state.
func (b *PGBus) Leave(id string) {
	ctx := b.ctx
	err := b.lockConn(func(c *pgxpool.Conn) error {
		if b.joined[id] == 0 {
			return nil
		}
		b.joined[id]--
		if b.joined[id] == 0 {
			delete(b.joined, id)
		}
		if _, err := c.Exec(ctx, `SELECT pg_advisory_unlock_shared($1, hashtext($2))`, presenceClass, id); err != nil {
			return err
		}
		var alone bool
		if err := c.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, presenceClass, id).Scan(&alone); err != nil || !alone {
			return err
		}
		_, err := b.pool.Exec(ctx, `DELETE FROM live_sessions WHERE id = $1`, id)
		if _, uerr := c.Exec(ctx, `SELECT pg_advisory_unlock($1, hashtext($2))`, presenceClass, id); err == nil {
			err = uerr
		}
		return err
	})
	if err != nil && ctx.Err() == nil {
		slog.Warn("live sync: leave session", "session", id, "err", err)
	}
}

// change runs edit on session id's state in a transaction that holds its
// row, writes the state edit leaves in the event it returns, and
// publishes that event when the transaction commits. create lets edit
// run on a session without state (old nil); otherwise that is errNoLive.
// An edit that returns a nil event changes nothing.
func (b *PGBus) change(id string, edit func(tx pgx.Tx, old *Shared) (*Event, error), create bool) error {
	return pgx.BeginFunc(b.ctx, b.pool, func(tx pgx.Tx) error {
		sh, ok, err := scanShared(tx.QueryRow(b.ctx, `SELECT rev, seq, settings FROM live_sessions WHERE id = $1 FOR UPDATE`, id), id)
		if err != nil {
			return err
		}
		var old *Shared
		switch {
		case ok:
			old = &sh
		case !create:
			return errNoLive
		}
		e, err := edit(tx, old)
		if err != nil || e == nil {
			return err
		}
		if e.Kind == "gone" {
			_, err = tx.Exec(b.ctx, `DELETE FROM live_sessions WHERE id = $1`, id)
		} else {
			var js []byte
			if js, err = json.Marshal(e.Settings); err != nil {
				return err
			}
			_, err = tx.Exec(b.ctx, `INSERT INTO live_sessions (id, rev, seq, settings) VALUES ($1, $2, $3, $4)
				ON CONFLICT (id) DO UPDATE SET rev = excluded.rev, seq = excluded.seq, settings = excluded.settings`,
				id, e.Rev, e.Seq, string(js))
		}
		if err != nil {
			return err
		}
		payload, err := eventPayload(*e, maxPayload)
		if err != nil {
			return err
		}
		_, err = tx.Exec(b.ctx, `SELECT pg_notify($1, $2)`, liveChannel, payload)
		return err
	})
}

// Set changes id's live state by apply and publishes it as a set.
func (b *PGBus) Set(id, name, from string, apply func(engine.Settings) (engine.Settings, error)) error {
	return b.change(id, func(_ pgx.Tx, old *Shared) (*Event, error) {
		s, err := apply(old.Settings)
		if err != nil {
			return nil, err
		}
		return &Event{Session: id, Kind: "set", Seq: old.Seq + 1, Rev: old.Rev, Name: name, From: from, Settings: &s}, nil
	}, false)
}

// Saved merges the save r (over prev) into id's live state, if it has one
// and it started from an older revision.
func (b *PGBus) Saved(prev, r store.Revision) error {
	err := b.change(r.ID, func(_ pgx.Tx, old *Shared) (*Event, error) {
		if r.Rev <= old.Rev {
			return nil, nil
		}
		s := applySaved(old.Settings, prev.Settings, r.Settings)
		return &Event{Session: r.ID, Kind: "saved", Seq: old.Seq + 1, Rev: r.Rev, Settings: &s}, nil
	}, false)
	if errors.Is(err, errNoLive) {
		return nil // nobody watches it
	}
	return err
}

// Gone publishes that id was deleted; every lab disconnects its clients.
func (b *PGBus) Gone(id string) error {
	return b.change(id, func(pgx.Tx, *Shared) (*Event, error) {
		return &Event{Session: id, Kind: "gone"}, nil
	}, true)
}

// Load returns id's live state, if it has one.
func (b *PGBus) Load(id string) (Shared, bool, error) {
	return scanShared(b.pool.QueryRow(b.ctx, `SELECT rev, seq, settings FROM live_sessions WHERE id = $1`, id), id)
}

// scanShared reads session id's live state from row, a query of its
// live_sessions row's rev, seq and settings (JSON over the defaults):
// ok is false when it has none.
func scanShared(row pgx.Row, id string) (sh Shared, ok bool, err error) {
	var settings string
	err = row.Scan(&sh.Rev, &sh.Seq, &settings)
	if errors.Is(err, pgx.ErrNoRows) {
		return Shared{}, false, nil
	}
	if err != nil {
		return Shared{}, false, err
	}
	sh.Settings = engine.Defaults()
	if err := json.Unmarshal([]byte(settings), &sh.Settings); err != nil {
		return Shared{}, false, fmt.Errorf("live state of %s: %w", id, err)
	}
	return sh, true, nil
}

// Live returns id's live state if a lab has clients on it: a state left
// by a lab that died alone with its clients is not live.
func (b *PGBus) Live(id string) (Shared, bool, error) {
	sh, ok, err := b.Load(id)
	if err != nil || !ok {
		return Shared{}, false, err
	}
	var nobody bool
	err = b.lockConn(func(c *pgxpool.Conn) error {
		if b.joined[id] > 0 {
			return nil
		}
		if err := c.QueryRow(b.ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, presenceClass, id).Scan(&nobody); err != nil || !nobody {
			return err
		}
		_, err := c.Exec(b.ctx, `SELECT pg_advisory_unlock($1, hashtext($2))`, presenceClass, id)
		return err
	})
	if err != nil || nobody {
		return Shared{}, false, err
	}
	return sh, true, nil
}
