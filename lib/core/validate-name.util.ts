/** Longest queue, task or alias name; keys stay short and readable. */
export const NAME_MAX_LENGTH = 200;

// Whitespace breaks CLI arguments and log lines; braces and colons would break
// the `threadmill:{alias}:...` key layout (hash tag and separators).
const FORBIDDEN = /[\s{}:]/;

/** Whether `name` can be a queue, task or backend alias name. */
export function isValidName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name.length > 0 &&
    name.length <= NAME_MAX_LENGTH &&
    !FORBIDDEN.test(name)
  );
}
