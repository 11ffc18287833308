// `@threadmill/nestjs/postgres`: the Postgres backend, which needs the optional
// peer pg.
export { PostgresBackend } from './postgres.backend';
export type { PostgresBackendOptions } from './postgres-backend-options';
