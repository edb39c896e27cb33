package compare

import (
	"container/list"
	"encoding/json"
	"strconv"
	"sync"

	"interplab/engine"
)

// Key identifies a run: its settings as JSON and the series step.
func Key(s engine.Settings, step float64) string {
	b, _ := json.Marshal(s) // valid settings hold finite numbers: it cannot fail
	return strconv.FormatFloat(step, 'g', -1, 64) + " " + string(b)
}

// lru keeps the latest runs by key.
type lru struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *entry, most recent first
	byKey map[string]*list.Element
}

type entry struct {
	key string
	res engine.Result
}

func newLRU(max int) *lru {
	return &lru{max: max, order: list.New(), byKey: make(map[string]*list.Element)}
}

func (l *lru) get(key string) (engine.Result, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.byKey[key]
	if !ok {
		return engine.Result{}, false
	}
	l.order.MoveToFront(e)
	return e.Value.(*entry).res, true
}

func (l *lru) put(key string, r engine.Result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.byKey[key]; ok {
		l.order.MoveToFront(e)
		return
	}
	l.byKey[key] = l.order.PushFront(&entry{key, r})
	if l.order.Len() > l.max {
		old := l.order.Back()
		l.order.Remove(old)
		delete(l.byKey, old.Value.(*entry).key)
	}
}
