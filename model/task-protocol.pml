/*
 * The task protocol as a model: what the stores do atomically (enqueue,
 * lease, acknowledge, the reaper's take-back, cancel, retry and remove by
 * hand), around a worker that runs, fails, crashes or stalls, and a clock
 * that lets any lease run out. Spin explores every interleaving of these steps
 * and checks, in every state reached:
 *
 *   - never run twice without a retry: each run of a task is one lease, and
 *     a task is leased again only after the lifecycle or an operator sent it
 *     back (a grant);
 *   - one retry makes one attempt: a retry by hand stores only against the
 *     attempt it read;
 *   - a cancel that answered `cancelled` means the task never runs again
 *     unless sent back by hand;
 *   - never lost: once nothing can move, no task is left RUNNING, and every
 *     task enqueued is READY or final.
 *
 * Prefetch (a lease held before its start) is not modelled: a task starts
 * when it is leased.
 *
 * Mutants, for `spin -D<name>`: MUTANT_RETRY_LOOP reads again after a lost
 * store and retries whatever attempt it finds (a retry's old loop).
 */

#define TASKS 2
#define WORKERS 1
#define RETRIES 1 /* automatic retries after the first attempt */
#define NOBODY 255

mtype = { ABSENT, READY, RUNNING, SUCCESSFUL, FAILED, CANCELLED, GONE };

mtype status[TASKS];
byte attempts[TASKS]; /* leases so far: the store's workerIds */
byte version[TASKS];  /* changes so far: what a control stores against */
byte holder[TASKS];
byte runs[TASKS];     /* runs begun */
byte grants[TASKS];   /* sent back READY after the enqueue */
bool cancelledFor[TASKS]; /* a cancel answered `cancelled` and no grant came since */

inline changed(t) { version[t]++ }

/* The lifecycle's one decision for an attempt that ended badly: back for another, or FAILED. */
inline endAttempt(t) {
  if
  :: attempts[t] <= RETRIES -> status[t] = READY; grants[t]++
  :: else -> status[t] = FAILED
  fi;
  holder[t] = NOBODY;
  changed(t)
}

proctype Producer() {
  byte t = 0;
  do
  :: t < TASKS -> atomic { status[t] = READY; holder[t] = NOBODY; changed(t) }; t++
  :: else -> break
  od
}

proctype Worker(byte w) {
  byte t, mine;
  do
  :: atomic {
       /* lease: one READY task, as acquire's script or transaction does */
       if
       :: status[0] == READY -> t = 0
       :: status[1] == READY -> t = 1
       fi;
       status[t] = RUNNING; holder[t] = w; attempts[t]++; mine = attempts[t]; changed(t);
       /* it starts at once */
       runs[t]++;
       assert(runs[t] <= 1 + grants[t]);
       assert(!cancelledFor[t])
     };
     if
     :: true -> atomic {
          /* acknowledge: stored only while this very lease holds */
          if
          :: status[t] == RUNNING && holder[t] == w && attempts[t] == mine ->
             status[t] = SUCCESSFUL; holder[t] = NOBODY; changed(t)
          :: else -> skip /* stale: the reaper took it back */
          fi
        }
     :: true -> atomic {
          /* a failed attempt, as the lifecycle decides it */
          if
          :: status[t] == RUNNING && holder[t] == w && attempts[t] == mine -> endAttempt(t)
          :: else -> skip
          fi
        }
     :: true -> break /* crash: its lease stays until taken back */
     fi
  :: break /* the pool stops */
  od
}

/* Takes back a lease whose holder died or whose time ran out (the clock may end any lease). */
proctype Reaper() {
  byte t;
end:
  do
  :: atomic {
       if
       :: status[0] == RUNNING -> t = 0
       :: status[1] == RUNNING -> t = 1
       fi;
       endAttempt(t)
     }
  od
}

proctype Canceller(byte t) {
  atomic {
    if
    :: status[t] == READY -> status[t] = CANCELLED; cancelledFor[t] = true; changed(t)
    :: else -> skip /* running: requested; final: already final */
    fi
  }
}

/* retry(id) by hand: a read, then a store against the attempt read. */
proctype Operator(byte t) {
  mtype seen;
  byte read, first;
  bool once = false;
again:
  atomic { seen = status[t]; read = version[t]; if :: !once -> first = read; once = true :: else -> skip fi };
  if
  :: seen == FAILED || seen == CANCELLED ->
     atomic {
       if
       :: version[t] == read ->
          /* one retry makes one attempt: the attempt it first read */
          assert(read == first);
          status[t] = READY; grants[t]++; cancelledFor[t] = false; changed(t)
       :: else ->
#ifdef MUTANT_RETRY_LOOP
          goto again
#else
          skip /* already-retried */
#endif
       fi
     }
  :: else -> skip
  fi
}

/* remove(id) by hand: a read, then a removal of the attempt read. */
proctype Remover(byte t) {
  byte read;
  bool final;
  atomic { final = (status[t] == SUCCESSFUL || status[t] == FAILED || status[t] == CANCELLED); read = version[t] };
  if
  :: final -> atomic { if :: version[t] == read -> status[t] = GONE; changed(t) :: else -> skip fi }
  :: else -> skip
  fi
}

/* Once nothing can move: nothing left RUNNING, nothing never stored. */
proctype Settled() {
end:
  timeout ->
    assert(status[0] != RUNNING && status[1] != RUNNING);
    assert(status[0] != ABSENT && status[1] != ABSENT)
}

init {
  atomic {
    run Producer();
    /* One worker: leases are taken one at a time whoever asks, and the reaper
       (a second pool recovering this one's leases, or the clock) races it. */
    run Worker(0);
    run Reaper();
    run Canceller(0);
    run Operator(0); run Operator(0);
    run Remover(1);
    run Settled()
  }
}
