import type { LoggerService } from '@nestjs/common';

import type { StoreCorruptError } from '../../core/errors/store-corrupt.error';
import type { EventStream } from '../../core/event-stream';
import type { StoreHealth } from '../../core/store-condition';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { PoolSchedules } from '../../schedule/schedule.service';
import type { ChildExitReason, HardStop, ParentMessage } from '../worker-ipc';

/** What the pool uses of a forked child: Node's ChildProcess, or a fake in unit tests. */
export interface ForkedChild {
  readonly pid?: number;
  readonly connected: boolean;
  send(message: ParentMessage, callback: (error: Error | null) => void): boolean;
  kill(signal: NodeJS.Signals): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  once(event: 'error', listener: (error: Error) => void): unknown;
  once(
    event: 'close',
    listener: (code: number | null, signal: NodeJS.Signals | null) => void,
  ): unknown;
}

export interface WorkerPoolDeps {
  readonly backend: TaskBackend;
  /** This machine's name: the first part of every worker id of the children (`host:pid-slot`). */
  readonly host: string;
  readonly logger: LoggerService;
  /** This process's event stream: children started and exited, failed maintenance steps, the summary. */
  readonly stream: EventStream;
  /**
   * Starts one child running the same command (`fork` of this CLI with the
   * child marker), keeping the ids it holds in the HeldJournal at `journalPath`.
   */
  readonly forkChild: (journalPath: string) => ForkedChild;
  /** Where the folder of the children's journals is made; the system's temporary directory by default. */
  readonly journalRoot?: string;
  /** Period of the summary line (tasks done, failed, rate). */
  readonly summaryIntervalMs: number;
  /** Delay before replacing a child that died while booting, so a broken app does not spin. */
  readonly bootRetryMs: number;
  /** How long an urgently stopped child may take to release its tasks before it is killed. */
  readonly urgentGraceMs: number;
  /**
   * This pool's id in the backend (its children acquire under it). With it the
   * pool beats every maintenance interval, and once its beats stop for `heartbeatToleranceMs`
   * any other pool's maintenance pass recovers what it held. Without it, no heartbeat.
   */
  readonly poolId?: string;
  /** How long one beat keeps the pool alive (ms). */
  readonly heartbeatToleranceMs?: number;
  /** Period of the check for children whose liveness beats stopped. */
  readonly livenessCheckMs: number;
  /** The backend's schedules, ticked by this pool's maintenance passes; none without. */
  readonly schedules?: PoolSchedules;
  /**
   * Told when the store is found damaged, which no retry can mend: by the
   * pool's heartbeat or a maintenance step, or by a child (which exits
   * saying so, or dies booting with ExitCode.StoreCorrupt). The launcher
   * then stops the pool at once.
   */
  readonly storeCorrupt?: (error: StoreCorruptError) => void;
}

/** The pool's state as its health endpoint reports it. */
export interface PoolHealth {
  readonly stopping: boolean;
  /** Children booted and working (a child still booting is not alive yet). */
  readonly childrenAlive: number;
  readonly childrenExpected: number;
  /** When the last maintenance pass completed (epoch ms), or null before the first. */
  readonly lastMaintenancePassAt: number | null;
  readonly maintenanceIntervalMs: number;
  readonly done: number;
  readonly failed: number;
  /** Children whose event loop stopped answering, killed and not yet gone. */
  readonly childrenWedged: number;
  /** What the store's condition says (storeHealth): its data found gone, or kept nowhere. */
  readonly store: StoreHealth;
}

/** What the pool's main process knows of one child. */
export interface ChildState {
  readonly process: ForkedChild;
  readonly pid: number;
  /** Its HeldJournal: the task ids it acquired and has not stored or released. */
  readonly journal: string;
  ready: boolean;
  exitReason: ChildExitReason | null;
  /** Set when the pool killed it for not answering: how long it had been silent (ms). */
  silentForMs: number | null;
  /** False once its journal failed (or had no folder): it may lack leases the child started. */
  journalWhole: boolean;
  /** Set when the pool killed it to stop this task (a hard stop), and why. */
  hardStopped: HardStop | null;
}
