// Prose of the generated Markdown pages, wrapped as the rest of the repository's Markdown.

/** Columns of prose, as the rest of the repository's Markdown. */
const WIDTH = 100;

/**
 * `text` in lines of at most WIDTH columns (a longer word or code span keeps
 * a line of its own); a code span is never split, so Prettier leaves it as is.
 */
function wrap(text: string, first: string, rest: string): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.match(/(?:`[^`]*`|[^\s`])+/g) ?? []) {
    if (!empty && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = rest;
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines;
}

export const paragraph = (text: string): string[] => wrap(text, '', '');
export const bullet = (text: string): string[] => wrap(text, '- ', '  ');
