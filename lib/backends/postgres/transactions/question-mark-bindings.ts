/** A `$n` parameter of a statement, as pg numbers them. */
const PARAMETER = /\$(\d+)/g;

/**
 * A statement's `$n` parameters as `?` placeholders, each with its value in
 * the order they appear (a `$n` used twice is bound twice): the form Knex's
 * `raw` binds, and MikroORM's through it. Threadmill's statements hold no
 * other `?`.
 *
 * @internal
 */
export function questionMarkBindings(
  text: string,
  values: readonly unknown[],
): { sql: string; bindings: unknown[] } {
  const bindings: unknown[] = [];
  const sql = text.replace(PARAMETER, (_, n: string) => {
    bindings.push(values[Number(n) - 1]);
    return '?';
  });
  return { sql, bindings };
}
