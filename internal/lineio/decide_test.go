package lineio

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// TestDecisionsTurn: the turn (decisions) passes between the workers and
// the writer without losing a chunk: a worker decides its chunk when it is
// its turn (0), a chunk whose turn has not come waits (ready) until the
// writer, done with the chunk before (1, which handed pieces over),
// decides it (2); a worker deciding chunk 3 on its own goroutine while
// chunk 5 waits behind the writer's chunk 4: once chunk 3 is done, the
// writer must find the turn at chunk 5 and decide it. (The turn moves
// before done is closed: a runner that moved it after let the writer see
// it busy and then moved it past chunk 5, which nobody decided: under
// -race, cli's TestDedupWorkersSameOutput never ended. That timing is rare here.)
// Many rounds, for the timings.
func TestDecisionsTurn(t *testing.T) {
	for round := range 2000 {
		var decided []int64
		var mu sync.Mutex
		p := &pipe[tsink, *tsink]{quit: make(chan struct{})}
		p.dec = decideFunc(func(k *tsink) {
			mu.Lock()
			decided = append(decided, int64(k.lines[0]))
			mu.Unlock()
		})
		c := make([]*Chunk[tsink], 6)
		for i := range c {
			c[i] = &Chunk[tsink]{seq: int64(i), done: make(chan struct{})}
			c[i].K.lines = []int{i}
		}
		wait := func(i int) {
			select {
			case <-c[i].done:
			case <-time.After(5 * time.Second):
				t.Fatalf("round %d: chunk %d never decided (decided %v, turn at %d)", round, i, decided, p.decisions.next)
			}
		}
		p.decideChunk(c[0]) // its turn: decided at once
		wait(0)
		c[1].handed = true // the writer's
		p.decideChunk(c[1])
		p.decideChunk(c[2]) // not its turn: ready
		p.decidedByWriter(c[1])
		wait(2)
		c[4].handed = true
		p.decideChunk(c[4])
		p.decideChunk(c[5]) // ready, after the writer's chunk 4
		go p.decideChunk(c[3])
		wait(3)
		p.decidedByWriter(c[4])
		wait(5)
		if want := []int64{0, 2, 3, 5}; !slices.Equal(decided, want) {
			t.Fatalf("round %d: decided %v, want %v", round, decided, want)
		}
	}
}

// decideFunc is a Decider calling itself.
type decideFunc func(k *tsink)

func (f decideFunc) Decide(k *tsink, _ int)  { f(k) }
func (f decideFunc) Undecided(k *tsink) bool { return false }
