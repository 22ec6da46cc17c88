/**
 * Pure text helpers for the panels: sizes, dates, the budget's figures, the shell quoting
 * of an inserted `%project read` line. No DOM, no requests.
 */

const UNITS = ['KiB', 'MiB', 'GiB'];

/** A byte count as people read it: `512 B`, `1.5 KiB`, `12.0 MiB`. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) {
    return '–';
  }
  if (bytes < 1024) {
    return `${bytes} B`;
  }
  let value = bytes;
  let unit = 'B';
  for (const next of UNITS) {
    if (value < 1024) {
      break;
    }
    value /= 1024;
    unit = next;
  }
  return `${value.toFixed(1)} ${unit}`;
}

/**
 * A file's size: its bytes, or for a doc (whose bytes the service does not give) its
 * estimated token count.
 */
export function formatSize(item: {
  bytes: number | null;
  tokens?: number | null;
}): string {
  if (item.bytes !== null && item.bytes !== undefined) {
    return formatBytes(item.bytes);
  }
  if (typeof item.tokens === 'number') {
    return `~${formatCount(item.tokens)} tokens`;
  }
  return '–';
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * An ISO 8601 time as `YYYY-MM-DD HH:MM` in the browser's time zone; text that is not a
 * time is shown as it came (the server has already applied its display rules).
 */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) {
    return '–';
  }
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) {
    return iso;
  }
  return (
    `${time.getFullYear()}-${pad(time.getMonth() + 1)}-${pad(time.getDate())} ` +
    `${pad(time.getHours())}:${pad(time.getMinutes())}`
  );
}

/** A whole number with thousands separators, the same in every locale (`1,800,000`). */
export function formatCount(n: number): string {
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Words that need no quoting: the characters Python's `shlex.quote` leaves bare. */
const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * One word quoted as Python's `shlex.quote` does, so `%project`'s shell splitting gives the
 * path back exactly; single quotes also keep a `$name` in the path literal.
 */
export function shellQuote(word: string): string {
  if (word === '') {
    return "''";
  }
  if (SHELL_SAFE.test(word)) {
    return word;
  }
  return `'${word.replace(/'/g, `'"'"'`)}'`;
}

/**
 * The cell that reads a doc: `%project read <path>`, with `--` before a path that starts
 * with `-` so it is not taken for an option.
 */
export function readCellSource(path: string): string {
  const marker = path.startsWith('-') ? '-- ' : '';
  return `%project read ${marker}${shellQuote(path)}`;
}

/** The knowledge budget's figures as fractions of the maximum (each clamped to 0–1). */
export interface IBudgetShares {
  used: number;
  threshold: number | null;
}

function share(part: number, whole: number): number {
  if (!(whole > 0) || !Number.isFinite(part)) {
    return 0;
  }
  return Math.min(1, Math.max(0, part / whole));
}

export function budgetShares(
  used: number,
  max: number,
  threshold: number | null
): IBudgetShares {
  return {
    used: share(used, max),
    threshold: threshold === null ? null : share(threshold, max)
  };
}

/** `0.7%`, `100%`: one decimal below 10 %, none above. */
export function formatPercent(fraction: number): string {
  const percent = fraction * 100;
  return percent < 10 && percent > 0
    ? `${percent.toFixed(1)}%`
    : `${Math.round(percent)}%`;
}

/** A search hit's snippet is cut to at most this many characters (then `…`). */
export const SNIPPET_CHARS = 220;

/** Markdown syntax, each rule with what it leaves of the text (line rules first). */
const MARKDOWN_LINES: [RegExp, string][] = [
  [/^\s*(```|~~~).*$/gm, ''], // code fences
  [/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/gm, ''], // table rules
  [/^\s*([-*_]\s*){3,}$/gm, ''], // horizontal rules
  [/^\s*(>\s?)+/gm, ''], // block quotes
  [/^\s*([-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?/gm, ''] // list items, task boxes
];
const MARKDOWN_INLINE: [RegExp, string][] = [
  [/!\[([^\]]*)\]\([^)]*\)/g, '$1'], // images: their alt text
  [/\[([^\]]+)\]\([^)]*\)/g, '$1'], // links: their text
  [/\[([^\]]+)\]\[[^\]]*\]/g, '$1'], // reference links
  [/`+([^`]+)`+/g, '$1'], // inline code
  [/(\*\*|__)(?=\S)([^*_]*?\S)\1/g, '$2'], // bold
  [/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?!\*)/g, '$1$2'], // italic with *
  [/(^|[^\w_])_(?=\S)([^_]*?\S)_(?!\w)/g, '$1$2'], // italic with _ (not snake_case)
  [/~~(?=\S)([^~]*?\S)~~/g, '$1'], // strikethrough
  [/\s*\|\s*/g, ' '] // table cells
];

/**
 * Markdown as the plain text it reads as: syntax removed, line breaks and runs of spaces
 * as one space. Text only: nothing is parsed as HTML (a `<b>` stays the characters it is).
 */
export function markdownToText(markdown: string): string {
  // a heading reads as a sentence of its own before the text that follows it
  let text = markdown.replace(
    /^\s{0,3}#{1,6}\s+(.*?)[\s#]*$/gm,
    (_line, heading: string) =>
      /[.:!?]$/.test(heading) ? heading : `${heading}.`
  );
  for (const [pattern, kept] of [...MARKDOWN_LINES, ...MARKDOWN_INLINE]) {
    text = text.replace(pattern, kept);
  }
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * A search hit's text as a snippet: plain text (`markdownToText`), at most `max`
 * characters, cut at the last word boundary before the limit (a single word longer than
 * that is cut where it must be), with `…` when anything was cut.
 */
export function snippetText(
  markdown: string,
  max: number = SNIPPET_CHARS
): string {
  const text = markdownToText(markdown);
  if (text.length <= max) {
    return text;
  }
  const room = text.slice(0, max); // the ellipsis takes the place of the cut space
  const space = room.lastIndexOf(' ');
  const cut = space > 0 ? room.slice(0, space) : room.slice(0, max - 1);
  return `${cut.replace(/[\s,;:–—-]+$/, '')}…`;
}
