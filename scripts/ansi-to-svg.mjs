// Turns a terminal screen captured with ANSI colours (`tmux capture-pane -p -e`)
// into an SVG that looks like a terminal window: every character at its cell, so
// box drawing and columns line up whatever font the viewer picks.
//
//   node scripts/ansi-to-svg.mjs capture.ansi --title "npx threadmill inspector" > screen.svg
//
// Handles the SGR codes tmux emits: reset, bold, dim, italic, underline,
// inverse, the 16 colours, 256 colours and 24-bit colours.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** A dark palette for the 16 ANSI colours (normal 0-7, bright 8-15). */
const PALETTE = [
  '#1e2127',
  '#e06c75',
  '#98c379',
  '#d19a66',
  '#61afef',
  '#c678dd',
  '#56b6c2',
  '#abb2bf',
  '#5c6370',
  '#ef7b84',
  '#a9d48a',
  '#e5c07b',
  '#7cc0f7',
  '#d68ef0',
  '#6fd0dc',
  '#ffffff',
];
const FOREGROUND = '#d7dae0';
const BACKGROUND = '#1e2127';
const CELL_WIDTH = 8.4;
const CELL_HEIGHT = 17;
const FONT_SIZE = 14;
const PADDING = 16;
const TITLE_BAR = 30;

/** The colour of entry `n` of xterm's 256-colour table. */
function color256(n) {
  if (n < 16) return PALETTE[n];
  if (n >= 232) {
    const level = 8 + (n - 232) * 10;
    return rgb(level, level, level);
  }
  const cube = n - 16;
  const steps = [0, 95, 135, 175, 215, 255];
  return rgb(steps[Math.floor(cube / 36)], steps[Math.floor(cube / 6) % 6], steps[cube % 6]);
}

function rgb(r, g, b) {
  return `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

const PLAIN = {
  fg: null,
  bg: null,
  bold: false,
  dim: false,
  italic: false,
  underline: false,
  inverse: false,
};

/** The style after one SGR sequence's parameters. */
function applySgr(style, params) {
  const codes = params === '' ? [0] : params.split(';').map(Number);
  let next = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i];
    if (code === 0) next = { ...PLAIN };
    else if (code === 1) next.bold = true;
    else if (code === 2) next.dim = true;
    else if (code === 3) next.italic = true;
    else if (code === 4) next.underline = true;
    else if (code === 7) next.inverse = true;
    else if (code === 22) next = { ...next, bold: false, dim: false };
    else if (code === 23) next.italic = false;
    else if (code === 24) next.underline = false;
    else if (code === 27) next.inverse = false;
    else if (code >= 30 && code <= 37) next.fg = PALETTE[code - 30];
    else if (code === 39) next.fg = null;
    else if (code >= 40 && code <= 47) next.bg = PALETTE[code - 40];
    else if (code === 49) next.bg = null;
    else if (code >= 90 && code <= 97) next.fg = PALETTE[code - 90 + 8];
    else if (code >= 100 && code <= 107) next.bg = PALETTE[code - 100 + 8];
    else if (code === 38 || code === 48) {
      const key = code === 38 ? 'fg' : 'bg';
      if (codes[i + 1] === 5) {
        next[key] = color256(codes[i + 2]);
        i += 2;
      } else if (codes[i + 1] === 2) {
        next[key] = rgb(codes[i + 2], codes[i + 3], codes[i + 4]);
        i += 4;
      }
    }
  }
  return next;
}

/** The screen as rows of cells `{ char, style }`. */
export function parseAnsi(text) {
  const rows = [];
  let style = { ...PLAIN };
  for (const line of text.replace(/\n$/, '').split('\n')) {
    const cells = [];
    const pattern = /\x1b\[([0-9;]*)([A-Za-z])|([^\x1b])/gu;
    for (const match of line.matchAll(pattern)) {
      if (match[3] !== undefined) cells.push({ char: match[3], style });
      else if (match[2] === 'm') style = applySgr(style, match[1]);
    }
    rows.push(cells);
  }
  return rows;
}

/**
 * The rounded box characters, drawn as strokes across their whole cell so
 * borders join without the gaps a font's glyphs leave between rows. Each
 * takes the cell's left x, top y, width and height.
 */
const BOX_PATHS = {
  '─': (x, y, w, h) => `M${x} ${y + h / 2}h${w}`,
  '│': (x, y, w, h) => `M${x + w / 2} ${y}v${h}`,
  '╭': (x, y, w, h) =>
    `M${x + w / 2} ${y + h}V${y + h / 2 + w / 2}Q${x + w / 2} ${y + h / 2} ${x + w} ${y + h / 2}`,
  '╮': (x, y, w, h) =>
    `M${x} ${y + h / 2}Q${x + w / 2} ${y + h / 2} ${x + w / 2} ${y + h / 2 + w / 2}V${y + h}`,
  '╰': (x, y, w, h) =>
    `M${x + w / 2} ${y}V${y + h / 2 - w / 2}Q${x + w / 2} ${y + h / 2} ${x + w} ${y + h / 2}`,
  '╯': (x, y, w, h) =>
    `M${x} ${y + h / 2}Q${x + w / 2} ${y + h / 2} ${x + w / 2} ${y + h / 2 - w / 2}V${y}`,
};

const round = (value) => Math.round(value * 10) / 10;

const escapeXml = (text) =>
  text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]);

/** The colours a cell is drawn with, inverse applied. */
function colours(style) {
  const fg = style.fg ?? FOREGROUND;
  const bg = style.bg;
  return style.inverse ? { fg: bg ?? BACKGROUND, bg: fg } : { fg, bg };
}

const sameLook = (a, b) => {
  const ca = colours(a);
  const cb = colours(b);
  return (
    ca.fg === cb.fg &&
    ca.bg === cb.bg &&
    a.bold === b.bold &&
    a.dim === b.dim &&
    a.italic === b.italic &&
    a.underline === b.underline
  );
};

/** An SVG of the screen, `columns` wide (default: the widest row). */
export function ansiToSvg(text, { title = '', columns } = {}) {
  const rows = parseAnsi(text);
  const width = columns ?? Math.max(...rows.map((row) => row.length));
  const svgWidth = Math.round(width * CELL_WIDTH + 2 * PADDING);
  const svgHeight = Math.round(rows.length * CELL_HEIGHT + 2 * PADDING + TITLE_BAR);
  const out = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${svgWidth}" height="${svgHeight}" viewBox="0 0 ${svgWidth} ${svgHeight}">`,
    `<rect width="100%" height="100%" rx="8" fill="${BACKGROUND}"/>`,
    `<circle cx="${PADDING + 6}" cy="15" r="6" fill="#e06c75"/>`,
    `<circle cx="${PADDING + 26}" cy="15" r="6" fill="#e5c07b"/>`,
    `<circle cx="${PADDING + 46}" cy="15" r="6" fill="#98c379"/>`,
    `<text x="${svgWidth / 2}" y="20" fill="#828997" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="13" text-anchor="middle">${escapeXml(title)}</text>`,
    `<g font-family="DejaVu Sans Mono, Menlo, Consolas, 'Liberation Mono', monospace" font-size="${FONT_SIZE}" transform="translate(${PADDING} ${PADDING + TITLE_BAR})">`,
  );
  rows.forEach((cells, row) => {
    const top = row * CELL_HEIGHT;
    out.push(`<g transform="translate(0 ${(top + CELL_HEIGHT * 0.76).toFixed(1)})">`);
    for (let start = 0; start < cells.length;) {
      let end = start + 1;
      while (end < cells.length && sameLook(cells[end].style, cells[start].style)) end++;
      const style = cells[start].style;
      const { fg, bg } = colours(style);
      if (bg !== null && bg !== undefined) {
        out.push(
          `<rect x="${(start * CELL_WIDTH).toFixed(1)}" y="${-(CELL_HEIGHT * 0.76).toFixed(1)}" width="${((end - start) * CELL_WIDTH).toFixed(1)}" height="${CELL_HEIGHT}" fill="${bg}"/>`,
        );
      }
      // One element per character, at its own cell: no viewer's font or
      // fallback glyph can shift a column. Spaces need no glyph.
      const glyphs = [];
      const strokes = [];
      for (let col = start; col < end; col++) {
        const { char } = cells[col];
        const box = BOX_PATHS[char];
        if (box) {
          const path = box(col * CELL_WIDTH, -CELL_HEIGHT * 0.76, CELL_WIDTH, CELL_HEIGHT);
          strokes.push(path.replace(/-?\d+\.\d+/g, (n) => String(round(Number(n)))));
        } else if (char !== ' ') {
          glyphs.push(`<text x="${round(col * CELL_WIDTH)}">${escapeXml(char)}</text>`);
        }
      }
      if (strokes.length > 0) {
        out.push(`<path d="${strokes.join('')}" fill="none" stroke="${fg}" stroke-width="1.2"/>`);
      }
      if (glyphs.length > 0) {
        const attributes = [
          `fill="${fg}"`,
          style.bold ? 'font-weight="bold"' : '',
          style.dim ? 'fill-opacity="0.6"' : '',
          style.italic ? 'font-style="italic"' : '',
          style.underline ? 'text-decoration="underline"' : '',
        ].filter(Boolean);
        out.push(`<g ${attributes.join(' ')}>${glyphs.join('')}</g>`);
      }
      start = end;
    }
    out.push('</g>');
  });
  out.push('</g>', '</svg>');
  return `${out.join('\n')}\n`;
}

// As a command: `node scripts/ansi-to-svg.mjs <capture> [--title <text>]`, SVG on stdout.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, ...rest] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node scripts/ansi-to-svg.mjs <capture.ansi> [--title <text>]\n');
    process.exit(2);
  }
  const titleAt = rest.indexOf('--title');
  const title = titleAt === -1 ? '' : (rest[titleAt + 1] ?? '');
  process.stdout.write(ansiToSvg(readFileSync(file, 'utf8'), { title }));
}
