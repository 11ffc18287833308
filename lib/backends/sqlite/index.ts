// `@threadmill/nestjs/sqlite`: the SQLite backend, which needs the optional
// peer better-sqlite3.
export { SqliteBackend } from './sqlite.backend';
export type { SqliteBackendOptions } from './sqlite-backend-options';
