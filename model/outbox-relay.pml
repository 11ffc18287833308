/*
 * The outbox relay as a model: apps write outbox rows in their own
 * transactions, which commit or roll back in any order; relays, one at a
 * time by a session advisory lock, take a generation (the fencing token)
 * once they hold the lock, read the committed rows, move them into Redis in
 * one atomic script that refuses the move of a relay older than the newest
 * generation and keeps a moved-id mark per task, then delete the rows on
 * the connection that holds the lock. Spin explores
 * every interleaving of these steps and checks, in every state reached:
 *
 *   - each task is stored in Redis at most once;
 *   - only committed tasks are stored (never a rolled-back or open one);
 *   - nothing lost: once nothing can move, every committed task was stored
 *     and its row deleted, and no rolled-back task was stored.
 *
 * Faults: a relay dies at any step (kill -9): its connection ends, the
 * lock with it, and it starts again with nothing in hand; its connection
 * to Postgres is lost while the relay goes on (the lock passes to another
 * relay while the first one's move is still to come; its delete then
 * fails); the reply of a move is lost (the relay treats the call as failed
 * and reads again, like a relay that died after its move).
 *
 * Abstractions:
 *   - A read takes every committed row (the code takes the oldest rows, a
 *     batch at a time, in the order they were written; a row that commits
 *     late is older than rows already moved and is taken by a later read).
 *   - The generation: Redis issues it (INCR) to a relay that has just taken
 *     the lock, before its first read, and a move carrying an older one is
 *     refused; so only whether a relay took the last one issued matters,
 *     and `newest` holds that relay. (The script also records a generation
 *     above the one it has, which only a Redis that lost its data sees.)
 *   - A move's script either stores every task it is given that has no
 *     mark, marking each, or refuses before writing anything (an error
 *     reply): the fence's, when a newer relay took a generation, or any
 *     other, after which the relay removes the marks of that call (none
 *     were set; the fence's refusal removes none, as they are the newer
 *     relay's); each is one step, and a refused relay drops its lock.
 *   - The mark window: a mark expires at any time once its row was deleted,
 *     however long a relay holds the task in hand (read, its move still to
 *     come, frozen for days): the fence refuses that relay's move. The
 *     window still has to outlast the time from a task's first move to its
 *     row's delete, for the move a relay that died in between leaves to the
 *     next one (MUTANT_SHORT_MARK shows what follows).
 *   - Waiting: a relay that found nothing keeps the lock and waits for a
 *     commit's notification (the safety poll finds nothing the
 *     notification would not).
 *
 * Mutants, for `spin -D<name>`: MUTANT_NO_MARK moves without the mark;
 * MUTANT_HIGH_WATER reads only rows written after the last one it moved,
 * so a row that commits late is skipped; MUTANT_SHORT_MARK lets a mark
 * expire before its row is deleted; MUTANT_NO_FENCE moves without checking
 * the generation, so a relay replaced between its read and its move stores
 * again a task the newer relay moved, once its mark expired.
 */

#define TASKS 3
#define RELAYS 2
#define FAULTS 2 /* deaths, lost connections and lost replies, all relays together */

#define NONE 0
#define OPEN 1
#define COMMITTED 2
#define ROLLED_BACK 3
#define DELETED 4

byte row[TASKS];     /* each task's outbox row */
byte seq[TASKS];     /* the order rows were written in */
byte written = 0;    /* rows written so far: the next row's seq */
byte stored[TASKS];  /* how many times Redis stored each task */
bool mark[TASKS];    /* Redis's moved-id mark of each task */
byte holder = 0;     /* the relay holding the advisory lock (1-based), 0: none */
byte newest = 0;     /* the relay that took the newest generation (1-based), 0: none yet */
byte faults = 0;
byte visible = 0;    /* committed rows not deleted */
byte commits = 0;    /* commits so far: each notifies the relay's channel */
byte settled = 0;    /* apps whose transaction has ended */
bool batch[RELAYS * TASKS]; /* what each relay holds in hand: read, not yet deleted or dropped */

#define B(t) batch[(r - 1) * TASKS + t]

proctype App(byte t) {
  atomic { row[t] = OPEN; seq[t] = written; written++ };
  if
  :: atomic { row[t] = COMMITTED; visible++; commits++; settled++ }
  :: atomic { row[t] = ROLLED_BACK; settled++ }
  fi
}

/* Whether a fault may happen now (each one counted). */
#define FAULT (faults < FAULTS)

/* What a read takes: every committed row, or for the mutant those from its high-water mark. */
#ifdef MUTANT_HIGH_WATER
#define READABLE(t) (row[t] == COMMITTED && seq[t] >= from)
#else
#define READABLE(t) (row[t] == COMMITTED)
#endif

/* What a move stores: a task read and not marked, or for the mutant every task read. */
#ifdef MUTANT_NO_MARK
#define MOVABLE(t) (B(t))
#else
#define MOVABLE(t) (B(t) && !mark[t])
#endif

/* Whether the fence refuses relay r's move: a newer relay took a generation, or for the mutant never. */
#ifdef MUTANT_NO_FENCE
#define FENCED (false)
#else
#define FENCED (newest != r)
#endif

/* When a mark may expire: once its row is deleted, or for the mutant at any time. */
#ifdef MUTANT_SHORT_MARK
#define EXPIRES(t) (mark[t])
#else
#define EXPIRES(t) (mark[t] && row[t] == DELETED)
#endif

proctype Relay(byte r) {
  byte t;
  byte seen;        /* `commits` when this relay last read: a later one notifies it */
  byte from = 0;    /* MUTANT_HIGH_WATER: the seq a read starts from */
  bool refused;

restart:
  /* Dead or not, whatever this relay held in its hands is gone. */
  atomic { t = 0; do :: t < TASKS -> B(t) = false; t++ :: else -> break od; t = 0 };
  from = 0;
end_idle:
  atomic { holder == 0 -> holder = r };
  /* its generation, newer than every one taken before, before its first read */
  newest = r;
holding:
  /* read: the committed rows, one snapshot */
  atomic {
    t = 0;
    do
    :: t < TASKS ->
       B(t) = READABLE(t);
       t++
    :: else -> break
    od;
    t = 0;
    seen = commits
  };
  if
  :: FAULT -> atomic { faults++; if :: holder == r -> holder = 0 :: else fi }; goto restart
  :: skip
  fi;
  /* the connection that holds the lock is lost: another relay may take it while this one goes on */
  if
  :: FAULT && holder == r -> atomic { faults++; holder = 0 }
  :: skip
  fi;
  /* move: one script, every unmarked task stored and marked, or refused before any write */
  if
  :: atomic {
       !FENCED ->
       t = 0;
       do
       :: t < TASKS ->
          if
          :: MOVABLE(t) ->
             assert(row[t] == COMMITTED || row[t] == DELETED);
             mark[t] = true;
             stored[t]++;
             assert(stored[t] <= 1)
          :: else
          fi;
          t++
       :: else -> break
       od;
       t = 0;
       refused = false
     }
  :: refused = true /* the fence's refusal (the only move left once FENCED), or any error reply */
  fi;
  if
  :: refused -> goto release /* the marks of a refused call are removed; none were set */
  :: else
  fi;
  /* the reply is lost, or the relay dies after its move */
  if
  :: FAULT -> atomic { faults++; if :: holder == r -> holder = 0 :: else fi }; goto restart
  :: skip
  fi;
  /* delete the moved rows, on the lock's connection: fails when it was lost */
  if
  :: atomic {
       holder == r ->
       t = 0;
       do
       :: t < TASKS ->
          if
          :: B(t) && row[t] == COMMITTED -> row[t] = DELETED; visible--
#ifdef MUTANT_HIGH_WATER
             ; if :: seq[t] + 1 > from -> from = seq[t] + 1 :: else fi
#endif
          :: else
          fi;
          B(t) = false;
          t++
       :: else -> break
       od;
       t = 0
     }
  :: holder != r -> goto restart
  fi;
  /* wait, holding the lock, for a commit's notification; or stop once every app is done and nothing waits */
end_wait:
  if
  :: commits != seen -> goto holding
  :: settled == TASKS && visible == 0 -> goto release
  fi;
release:
  atomic { if :: holder == r -> holder = 0 :: else fi };
  goto restart
}

/* Marks expire: only once their row is deleted, but for the mutant. */
active proctype Expiry() {
  byte t;
end:
  do
  :: select(t : 0 .. TASKS - 1);
     atomic { EXPIRES(t) -> mark[t] = false }
  od
}

init {
  byte t;
  atomic {
    t = 0;
    do :: t < TASKS -> run App(t); t++ :: else -> break od;
    t = 1;
    do :: t <= RELAYS -> run Relay(t); t++ :: else -> break od
  }
}

/* Once nothing can move: every committed task stored once and its row gone, no rolled-back one stored. */
active proctype Settled() {
  byte t;
  timeout ->
  assert(settled == TASKS);
  t = 0;
  do
  :: t < TASKS ->
     if
     :: row[t] == ROLLED_BACK -> assert(stored[t] == 0)
     :: else -> assert(row[t] == DELETED && stored[t] == 1)
     fi;
     t++
  :: else -> break
  od
}
