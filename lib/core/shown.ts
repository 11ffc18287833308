/**
 * How a message prints a name or a value a user gave: a string quoted and
 * escaped as JSON, anything else as String() writes it. A queue, task, alias
 * or schedule name can hold any character until it is refused, and the
 * refusal prints it: escaped, a newline or a terminal escape in it cannot end
 * the line and forge the next one. Line and paragraph separators and the
 * C1 controls, which JSON leaves as they are, are escaped too.
 */
export function shown(value: unknown): string {
  if (typeof value !== 'string') return String(value);
  return JSON.stringify(value).replace(
    /[\u007f-\u009f\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Names as a message lists them: each as `shown` prints it, comma separated. */
export function shownList(names: readonly string[]): string {
  return names.map(shown).join(', ');
}
