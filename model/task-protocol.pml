/*
 * The task protocol as a model: what the stores do atomically (enqueue,
 * lease, acknowledge, give back unstarted, the reaper's take-back, cancel and
 * its requests, retry and remove by hand), around a worker child of one slot
 * and one prefetch place that leases ahead of its slot (prefetch), reads its
 * pool's cancel requests, runs, fails, crashes or stalls, and a clock that
 * lets a lease run out. Spin explores every interleaving of these steps and
 * checks, in every state reached:
 *
 *   - never run twice without a retry: each run of a task is one lease, and
 *     a task runs again only after the lifecycle or an operator sent it back
 *     (a grant); a lease given back unstarted grants nothing;
 *   - one retry makes one attempt: a retry by hand stores only against the
 *     attempt it read;
 *   - a cancel that answered `cancelled` means the task never runs again
 *     unless sent back by hand;
 *   - never started after its cancel answered: once a cancel answered
 *     (`cancelled`, `already-final` or `requested`), the attempt it answered
 *     for never starts. A retry by hand makes a new attempt, which may start,
 *     even one that came while the cancel waited (the mark it clears tells);
 *   - never lost: once nothing can move, no task is left RUNNING, and every
 *     task enqueued is READY or final.
 *
 * The cancel of a leased task (RUNNING: started, prefetched, or its lease
 * reply still on its way), in one store step, marks the task (every later
 * lease returns the mark with the record) and adds a request for the
 * holder's pool; then the caller waits, and answers: when final, `cancelled`
 * or `already-final`; when the request is gone while RUNNING, `requested`;
 * when READY again, it cancels it as a waiting task; at its bound B,
 * `requested`. The child reads its pool's requests (a read is sent, the store
 * answers, the child handles the answer later): a lease it holds unstarted it
 * stores CANCELLED, one it runs it aborts, and it drops the request. A request
 * names the lease it was made for, and only that lease is handled for it:
 * were it matched by id alone, a run of an earlier lease of the task (taken
 * back by the reaper, still running in a child) would drop it while the lease
 * it was made for is still on its way, which then starts after the caller
 * answered `requested`. A child starts a leased task only if its record
 * carries no mark, its id is not among the requests it last read, and that
 * read was sent less than F ago (else it reads first). An attempt that ends
 * badly with the mark set ends CANCELLED; a task leased with it is stored
 * CANCELLED instead of started; a retry by hand clears it.
 *
 * Abstractions:
 *   - The clock, for the cancel's bound: the caller may answer at its bound
 *     at any time. Since B > F, a start after that answer rests on a read sent
 *     after the request was stored; so at that answer, a view of the child
 *     (its last read, or the read in flight) sent before the request becomes
 *     too old to start on (`viewOld`, `sentOld`), and the child reads again
 *     first. A child that has never read has no view to start on.
 *   - The clock, for leases: the reaper may end any lease, except one that a
 *     live child holds unstarted: the prefetch shelf gives a task back after
 *     a tenth of its lease and starts one only while its timeout fits in what
 *     is left, so such a lease does not run out in the child's hands. Once the
 *     child is gone (crashed, or its pool lost) the reaper ends all it held.
 *   - The child's event loop: what follows a step in the same turn (a task
 *     leased with the mark stored CANCELLED, a waiting task started in a free
 *     slot) is part of that step.
 *   - A give-back (a stop, a paused queue, a long wait, a crash recovered by
 *     the pool) is one step, as if never leased: no attempt counted, the mark
 *     kept; one in all, as each one adds a round of leases. A release on a
 *     stop ends the attempt, as a failure does.
 *   - A request whose lease ended, named by no hold of the child, is dropped
 *     at once (the code lets it expire after a while): a waiting caller may
 *     then answer sooner, and the child start that id sooner, than in the
 *     code: more answers and starts to check, none fewer.
 *   - A retry or removal by hand of a task that is not final changes nothing:
 *     each asks once the task is final.
 *   - One pool of one child; task 0 has one automatic retry and is cancelled
 *     and retried by hand, task 1 has none and is removed.
 *
 * Mutants, for `spin -D<name>`: MUTANT_RETRY_LOOP reads again after a lost
 * store and retries whatever attempt it finds (a retry's old loop);
 * MUTANT_PREFETCH_START is the old prefetch start: a child starts a leased
 * task when a slot is free without looking at cancel requests, and the cancel
 * of a leased task answers `requested` at once (no mark, no wait).
 */

#define TASKS 2
#define ENTRIES 2  /* what the child holds: one slot and one prefetch place */
#define RETRIES(t) (1 - t) /* automatic retries after the first attempt: one for task 0, none for task 1 */
#define GIVEBACKS 1 /* give-backs of an unstarted lease, in all (each one leased again makes a longer run) */
#define NOBODY 255
#define CHILD 0

mtype = { ABSENT, READY, RUNNING, SUCCESSFUL, FAILED, CANCELLED, GONE };
/* A child's hold on a lease: none, the reply on its way, known and unstarted, run, run and aborted. */
mtype = { FREE, INFLIGHT, HELD, STARTED, ABORTED };

/* The store. */
mtype status[TASKS];
byte attempts[TASKS]; /* leases that count as attempts: the store's workerIds */
byte lease[TASKS];    /* numbers the task's leases, so a hold knows whether it is the one that
                         holds now (a give-back does not undo it) */
byte holder[TASKS];
bool mark[TASKS];     /* cancel requested: returned with every lease of the record */
byte request[TASKS];  /* a cancel request for the holder's pool: the lease it names (0: none) */

/* What happened, for the assertions. */
byte credit[TASKS];   /* runs it may still begin: one for the enqueue, one more per grant (a send
                         back READY as an attempt's end or by hand) */
bool cancelledFor[TASKS]; /* a cancel answered `cancelled` and no grant by hand came since */
bool answered[TASKS];     /* a cancel answered for the attempt there now */

/* The child: its holds, and its view of its pool's requests. */
bool alive = true;
byte givebacks;
mtype phase[ENTRIES];
byte task[ENTRIES];
byte held[ENTRIES];   /* the lease it holds */
bool marked[ENTRIES]; /* the lease's record carried the mark */
bool lastRead[TASKS]; /* the requests it last read */
byte got[TASKS];      /* the answer of its read in flight */
bool reading;         /* a read is in flight */
bool viewOld = true;  /* its last read is too old to start on (it has none yet) */
bool sentOld;         /* the read in flight will be too old */
bool viewBefore[TASKS]; /* its last read was sent before the request for the task */
bool sentBefore[TASKS]; /* its read in flight was sent before it */

/* The controls by hand (retry, remove) read, then store only if nothing changed since: each
   watches the task it read. Flags, not a version counter, so that a history no one watches
   any more does not split the states. */
#define READERS 3
byte watching[READERS]; /* the task a control read and will store against, plus one (0: none) */
bool stale[READERS];    /* it changed since that read */
bool moved[READERS];    /* it changed since the control's first read */

inline changed(t) {
  if :: watching[0] == t + 1 -> stale[0] = true; moved[0] = true :: else -> skip fi;
  if :: watching[1] == t + 1 -> stale[1] = true; moved[1] = true :: else -> skip fi;
  if :: watching[2] == t + 1 -> stale[2] = true; moved[2] = true :: else -> skip fi
}

/* The child's hold `e` is the lease that holds its task now. */
#define holds(e) (status[task[e]] == RUNNING && holder[task[e]] == CHILD && lease[task[e]] == held[e])
/* The child holds the lease of `t` unstarted: its reply on the way, or waiting. */
#define unstarted(e, t) ((phase[e] == INFLIGHT || phase[e] == HELD) && task[e] == t && held[e] == lease[t])
#define slotFree (phase[0] != STARTED && phase[0] != ABORTED && phase[1] != STARTED && phase[1] != ABORTED)
#define placeFree (phase[0] == FREE || phase[1] == FREE)
#ifdef MUTANT_PREFETCH_START
#define startable(e) (phase[e] == HELD)
#else
#define startable(e) (phase[e] == HELD && !marked[e] && !lastRead[task[e]] && !viewOld)
#endif

/* The lifecycle's one decision for an attempt that ended badly: a cancel requested ends it
   CANCELLED, else back for another, or FAILED. */
inline endAttempt(t) {
  if
  :: mark[t] -> status[t] = CANCELLED
  :: !mark[t] && attempts[t] <= RETRIES(t) -> status[t] = READY; credit[t]++
  :: !mark[t] && attempts[t] > RETRIES(t) -> status[t] = FAILED
  fi;
  holder[t] = NOBODY;
  changed(t)
}

inline free(e) { phase[e] = FREE; task[e] = 0; held[e] = 0; marked[e] = false }

/* After each of the child's steps and the reaper's: its holds in one order, and a lease number
   no one refers to any more forgotten, so that states alike in all that matters are one. */
inline tidy() {
  if
  :: phase[0] < phase[1] || phase[0] == phase[1] && (task[0] < task[1] || task[0] == task[1] && held[0] < held[1]) ->
     p = phase[0]; phase[0] = phase[1]; phase[1] = p;
     x = task[0]; task[0] = task[1]; task[1] = x;
     x = held[0]; held[0] = held[1]; held[1] = x;
     m = marked[0]; marked[0] = marked[1]; marked[1] = m;
     p = 0; x = 0; m = false
  :: else -> skip
  fi;
  sweep(0); sweep(1);
  forget(0); forget(1)
}

/* A request whose lease ended, and that names no hold of the child, can be handled by no one:
   dropped (see Abstractions). */
inline sweep(t) {
  if
  :: request[t] != 0 && !(status[t] == RUNNING && lease[t] == request[t]) &&
     !(phase[0] != FREE && task[0] == t && held[0] == request[t]) &&
     !(phase[1] != FREE && task[1] == t && held[1] == request[t]) -> request[t] = 0
  :: else -> skip
  fi
}

inline forget(t) {
  if
  :: status[t] != RUNNING && request[t] == 0 && got[t] == 0 &&
     !(phase[0] != FREE && task[0] == t) && !(phase[1] != FREE && task[1] == t) -> lease[t] = 0
  :: else -> skip
  fi
}

proctype Producer() {
  byte t = 0;
  do
  :: t < TASKS -> atomic { status[t] = READY; holder[t] = NOBODY; credit[t] = 1; changed(t) }; t++
  :: else -> break
  od
}

/* A task's start, by the child: the checks, then the run begins. */
inline start(e) {
  t = task[e];
  phase[e] = STARTED;
  assert(credit[t] > 0);
  credit[t]--;
  assert(!cancelledFor[t]);
  assert(!answered[t])
}

/* What the child does at once after its steps (in the same turn of its event loop): a task
   leased with its mark is stored CANCELLED, and a leased task starts in a free slot if nothing
   it knows forbids it (else it waits: for its slot, or for its next read). */
inline settle() {
#ifndef MUTANT_PREFETCH_START
  d_step {
    e = 0;
    do
    :: e < ENTRIES ->
       if
       :: phase[e] == HELD && marked[e] ->
          if :: holds(e) -> t = task[e]; status[t] = CANCELLED; holder[t] = NOBODY; changed(t) :: else -> skip fi;
          free(e)
       :: else -> skip
       fi;
       e++
    :: else -> break
    od;
    t = 0; e = 0
  };
#endif
  if
  :: slotFree && startable(0) -> start(0)
  :: slotFree && startable(1) -> start(1)
  :: else -> skip
  fi;
  d_step { t = 0; e = 0; tidy() }
}

inline leaseTo(t) {
  if :: phase[0] == FREE -> e = 0 :: else -> e = 1 fi;
  status[t] = RUNNING; holder[t] = CHILD; attempts[t]++; lease[t]++; changed(t);
  phase[e] = INFLIGHT; task[e] = t; held[e] = lease[t]; marked[e] = mark[t]
}

inline giveBack(e) {
  givebacks++;
  if
  :: holds(e) -> t = task[e]; status[t] = READY; holder[t] = NOBODY; attempts[t]--; changed(t)
  :: else -> skip
  fi;
  free(e)
}

inline acknowledge(e) {
  if
  :: holds(e) -> t = task[e]; status[t] = SUCCESSFUL; holder[t] = NOBODY; changed(t)
  :: else -> skip /* stale: the reaper took it back */
  fi;
  free(e)
}

/* One aborted by its cancel ends CANCELLED. */
inline fail(e) {
  t = task[e];
  if
  :: holds(e) && phase[e] == ABORTED -> status[t] = CANCELLED; holder[t] = NOBODY; changed(t)
  :: holds(e) && phase[e] == STARTED -> endAttempt(t)
  :: else -> skip
  fi;
  free(e)
}

/* The answer of a read: a request's lease held unstarted -> CANCELLED, run -> aborted; either
   way the request dropped. A lease not held here (its reply still on the way) is left alone. */
inline handleRead() {
  t = 0;
  do
  :: t < TASKS ->
     lastRead[t] = (got[t] != 0); viewBefore[t] = sentBefore[t];
     e = 0;
     do
     :: e < ENTRIES && got[t] != 0 ->
        if
        :: phase[e] == HELD && task[e] == t && held[e] == got[t] ->
           if :: holds(e) -> status[t] = CANCELLED; holder[t] = NOBODY; changed(t) :: else -> skip fi;
           free(e); request[t] = 0
        :: phase[e] == STARTED && task[e] == t && held[e] == got[t] -> phase[e] = ABORTED; request[t] = 0
        :: phase[e] == ABORTED && task[e] == t && held[e] == got[t] -> request[t] = 0
        :: else -> skip
        fi;
        e++
     :: else -> break
     od;
     got[t] = 0; sentBefore[t] = false;
     t++
  :: else -> break
  od;
  viewOld = sentOld; sentOld = false; reading = false
}

proctype Child() {
  byte t, e, x; /* scratch, zero between steps */
  mtype p;
  bool m;
  do
  :: atomic {
       if
       :: /* lease one READY task for a free slot or place, as acquire's script or transaction does */
          status[0] == READY && placeFree -> d_step { t = 0; leaseTo(t) }
       :: status[1] == READY && placeFree -> d_step { t = 1; leaseTo(t) }
       :: /* the lease reply arrives */
          phase[0] == INFLIGHT -> phase[0] = HELD
       :: phase[1] == INFLIGHT -> phase[1] = HELD
       :: /* given back unstarted, as if never leased (a stop, a paused queue, a long wait) */
          phase[0] == HELD && givebacks < GIVEBACKS -> d_step { giveBack(0) }
       :: phase[1] == HELD && givebacks < GIVEBACKS -> d_step { giveBack(1) }
       :: /* a run ends: acknowledged, stored only while this very lease holds */
          phase[0] == STARTED || phase[0] == ABORTED -> d_step { acknowledge(0) }
       :: phase[1] == STARTED || phase[1] == ABORTED -> d_step { acknowledge(1) }
       :: /* a run ends badly (failed, released on a stop), as the lifecycle decides it */
          phase[0] == STARTED || phase[0] == ABORTED -> d_step { fail(0) }
       :: phase[1] == STARTED || phase[1] == ABORTED -> d_step { fail(1) }
       :: /* a read of the pool's requests is sent, and the store answers it; one that could
             bring nothing new leaves all as it was, and is left out */
          !reading && (viewOld || (request[0] != 0) != lastRead[0] || (request[1] != 0) != lastRead[1] ||
                       viewBefore[0] || viewBefore[1]) ->
          d_step {
            reading = true; sentOld = false;
            got[0] = request[0]; got[1] = request[1];
            sentBefore[0] = false; sentBefore[1] = false
          }
       :: /* its answer is handled */
          reading -> d_step { handleRead() }
       :: alive = false; break /* crash, or its pool lost: its leases stay until taken back */
       fi;
       settle()
     }
  od
}

/* Takes back a lease whose holder died or whose time ran out. */
proctype Reaper() {
  byte t, x;
  mtype p;
  bool m;
end:
  do
  :: atomic {
       /* a live child's unstarted lease does not run out (see Abstractions) */
       if
       :: status[0] == RUNNING && (!alive || !unstarted(0, 0) && !unstarted(1, 0)) -> t = 0
       :: status[1] == RUNNING && (!alive || !unstarted(0, 1) && !unstarted(1, 1)) -> t = 1
       fi;
       d_step { endAttempt(t); t = 0; tidy() }
     }
  od
}

/* cancel(id): one store step, then, for a leased task, a wait for the holder. */
proctype Canceller(byte t) {
  atomic {
    if
    :: status[t] == READY ->
       status[t] = CANCELLED; cancelledFor[t] = true; answered[t] = true; changed(t); goto done
    :: status[t] == RUNNING ->
#ifdef MUTANT_PREFETCH_START
       request[t] = lease[t]; answered[t] = true; goto done /* `requested` at once */
#else
       mark[t] = true; request[t] = lease[t]; changed(t);
       viewBefore[t] = true; sentBefore[t] = reading
#endif
    :: status[t] == SUCCESSFUL || status[t] == FAILED || status[t] == CANCELLED ->
       answered[t] = true; goto done /* already final */
    :: else -> goto done /* not found */
    fi
  };
  /* waits for the holder */
  if
  :: atomic {
       status[t] == SUCCESSFUL || status[t] == FAILED || status[t] == CANCELLED ->
       answered[t] = true; cancelledFor[t] = (status[t] == CANCELLED)
     }
  :: atomic {
       /* the holder started it and aborted its signal: `requested` */
       status[t] == RUNNING && request[t] == 0 -> answered[t] = mark[t]
     }
  :: atomic {
       /* given back meanwhile: cancelled as a waiting task */
       status[t] == READY -> status[t] = CANCELLED; cancelledFor[t] = true; answered[t] = true; changed(t)
     }
  :: atomic {
       /* its bound ran out: `requested`; a view that predates the request is now too old */
       answered[t] = mark[t];
       if :: viewBefore[t] -> viewOld = true :: else -> skip fi;
       if :: reading && sentBefore[t] -> sentOld = true :: else -> skip fi
     }
  fi;
done:
  atomic { viewBefore[t] = false; sentBefore[t] = false } /* they matter only to a waiting bound */
}

/* retry(id) by hand, as control `r`: a read, then a store against the attempt read. (A
   process ends with its state cleared: a finished one stays, and must not split the states.) */
proctype Operator(byte t, r) {
again:
end_idle: /* a retry of a task not final changes nothing: the operator asks once it is */
  atomic {
    if
    :: status[t] == FAILED || status[t] == CANCELLED ->
       if :: watching[r] == 0 -> moved[r] = false :: else -> skip fi;
       watching[r] = t + 1; stale[r] = false
    :: !(status[t] == FAILED || status[t] == CANCELLED) && watching[r] != 0 ->
       watching[r] = 0; stale[r] = false; moved[r] = false; goto done /* not retriable */
    fi
  };
  atomic {
    if
    :: !stale[r] ->
       /* one retry makes one attempt: the attempt it first read */
       assert(!moved[r]);
       status[t] = READY; credit[t]++; mark[t] = false;
       cancelledFor[t] = false; answered[t] = false; changed(t)
    :: else ->
#ifdef MUTANT_RETRY_LOOP
       goto again
#else
       skip /* already-retried */
#endif
    fi;
    watching[r] = 0; stale[r] = false; moved[r] = false
  };
done:
  skip
}

/* remove(id) by hand, as control `r`: a read, then a removal of the attempt read. */
proctype Remover(byte t, r) {
end_idle: /* as a retry: a removal of a task not final changes nothing */
  atomic {
    status[t] == SUCCESSFUL || status[t] == FAILED || status[t] == CANCELLED ->
    watching[r] = t + 1; stale[r] = false
  };
  atomic {
    if :: !stale[r] -> status[t] = GONE; changed(t) :: else -> skip fi;
    watching[r] = 0; stale[r] = false; moved[r] = false
  };
done:
  skip
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
    status[0] = ABSENT; status[1] = ABSENT;
    phase[0] = FREE; phase[1] = FREE;
    run Producer();
    /* One child of one slot and one prefetch place: leases are taken one at a
       time whoever asks, and the reaper (a second pool recovering this one's
       leases, or the clock) races it. */
    run Child();
    run Reaper();
    run Canceller(0);
    run Operator(0, 0); run Operator(0, 1);
    run Remover(1, 2);
    run Settled()
  }
}
