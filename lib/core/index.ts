// The contract every other folder of lib/ shares. Nothing here imports from
// outside core/.
export * from './errors';
export * from './backend-config.interface';
export * from './backend-telemetry.interface';
export * from './task-backend.interface';
export * from './acknowledge-then-acquire';
export * from './task-context';
export * from './current-task';
export * from './task-executor.interface';
export * from './task-options.interface';
export * from './task-record.interface';
export * from './record-with';
export * from './unleased';
export * from './unreadable-record';
export * from './task-result';
export * from './retry-policy';
export * from './task-result-status.enum';
export * from './task-serializer';
export * from './threadmill.constants';
export * from './threadmill.messages';
export * from './validate-name.util';
export * from './distinct-ids';
export * from './attempt-control';
export * from './cancelled-record';
