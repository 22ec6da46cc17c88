import {
  budgetShares,
  formatBytes,
  formatCount,
  formatDate,
  formatPercent,
  formatSize,
  markdownToText,
  readCellSource,
  shellQuote,
  SNIPPET_CHARS,
  snippetText
} from '../format';

describe('formatBytes', () => {
  it('keeps bytes below 1 KiB exact and switches unit at 1024', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KiB');
    expect(formatBytes(1024 * 1024 - 1)).toBe('1024.0 KiB');
    expect(formatBytes(1024 * 1024)).toBe('1.0 MiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GiB');
  });

  it('shows a dash for a missing size', () => {
    expect(formatBytes(null)).toBe('–');
    expect(formatBytes(undefined)).toBe('–');
  });
});

describe('formatSize', () => {
  it('gives bytes where known, else the estimated tokens', () => {
    expect(formatSize({ bytes: 2048, tokens: 9 })).toBe('2.0 KiB');
    expect(formatSize({ bytes: null, tokens: 1234 })).toBe('~1,234 tokens');
    expect(formatSize({ bytes: null, tokens: null })).toBe('–');
  });
});

describe('formatDate', () => {
  it('shows an ISO time as date and minutes (in UTC under jest)', () => {
    expect(formatDate('2026-12-03T08:05:59Z')).toBe('2026-12-03 08:05');
  });

  it('shows text that is not a time as it came', () => {
    expect(formatDate('[not shown: control characters]')).toBe(
      '[not shown: control characters]'
    );
    expect(formatDate('')).toBe('–');
  });
});

describe('formatCount and formatPercent', () => {
  it('groups thousands the same in every locale', () => {
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1000)).toBe('1,000');
    expect(formatCount(1800000)).toBe('1,800,000');
  });

  it('gives one decimal below 10 % and none from 10 %', () => {
    expect(formatPercent(0)).toBe('0%');
    expect(formatPercent(0.00686)).toBe('0.7%');
    expect(formatPercent(0.0999)).toBe('10.0%');
    expect(formatPercent(0.1)).toBe('10%');
    expect(formatPercent(1)).toBe('100%');
  });
});

describe('budgetShares', () => {
  it('gives used and threshold as fractions of the maximum, clamped', () => {
    expect(budgetShares(450, 1800, 900)).toEqual({
      used: 0.25,
      threshold: 0.5
    });
    expect(budgetShares(2000, 1800, 900).used).toBe(1);
    expect(budgetShares(-5, 1800, null)).toEqual({ used: 0, threshold: null });
  });

  it('reads a zero maximum as an empty budget rather than dividing by it', () => {
    expect(budgetShares(10, 0, 5)).toEqual({ used: 0, threshold: 0 });
  });
});

describe('shellQuote and readCellSource', () => {
  it('leaves a plain path bare, as shlex.quote does', () => {
    expect(shellQuote('guides/onboarding-v2.md')).toBe(
      'guides/onboarding-v2.md'
    );
    expect(readCellSource('guides/a.md')).toBe('%project read guides/a.md');
  });

  it('single-quotes spaces, quotes and $names so the magic gets the path back', () => {
    expect(shellQuote('my notes.md')).toBe("'my notes.md'");
    expect(shellQuote('$HOME.md')).toBe("'$HOME.md'");
    expect(shellQuote("it's.md")).toBe(`'it'"'"'s.md'`);
    expect(shellQuote('')).toBe("''");
    expect(shellQuote('ünïcode.md')).toBe("'ünïcode.md'");
  });

  it('puts -- before a path that would read as an option', () => {
    expect(readCellSource('-draft.md')).toBe('%project read -- -draft.md');
  });
});

describe('markdownToText', () => {
  it.each([
    [
      '# Onboarding\n\nDay **one**: read the _style guide_.',
      'Onboarding. Day one: read the style guide.'
    ],
    [
      '## Steps\n- first\n* second\n1. third\n- [x] done',
      'Steps. first second third done'
    ],
    ['> quoted `code` and ~~old~~ text', 'quoted code and old text'],
    [
      'See [the runbook](https://x.example/r) and ![a chart](c.png).',
      'See the runbook and a chart.'
    ],
    ['| a | b |\n|---|:---:|\n| 1 | 2 |', 'a b 1 2'],
    ['```python\nprint(1)\n```', 'print(1)'],
    ['snake_case_name and 2*3*4 stay', 'snake_case_name and 2*3*4 stay'],
    ['---\ntext', 'text']
  ])('%j reads as %j', (markdown, text) => {
    expect(markdownToText(markdown)).toBe(text);
  });

  it('keeps HTML as the characters it is (never parsed)', () => {
    expect(markdownToText('<img src=x onerror=alert(1)> <b>bold</b>')).toBe(
      '<img src=x onerror=alert(1)> <b>bold</b>'
    );
  });
});

describe('snippetText', () => {
  const words = (n: number) =>
    Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

  it('keeps a text that fits whole, at the limit exactly', () => {
    const text = 'a'.repeat(SNIPPET_CHARS);
    expect(snippetText(text)).toBe(text);
    expect(snippetText('Day one')).toBe('Day one');
  });

  it('cuts one character over the limit at a word boundary, with an ellipsis', () => {
    const text = `${'a'.repeat(SNIPPET_CHARS - 5)} bcdef`; // SNIPPET_CHARS + 1
    expect(snippetText(text)).toBe(`${'a'.repeat(SNIPPET_CHARS - 5)}…`);
  });

  it('never ends mid-word and stays within the limit', () => {
    const cut = snippetText(words(200), 50);
    expect(cut.length).toBeLessThanOrEqual(50);
    expect(cut.endsWith('…')).toBe(true);
    const last = cut.slice(0, -1).split(' ').pop() as string;
    expect(words(200).split(' ')).toContain(last);
  });

  it('cuts a single overlong word where it must', () => {
    expect(snippetText('x'.repeat(30), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('strips Markdown before measuring', () => {
    expect(snippetText('## Release\n\n**Freeze** on `main`')).toBe(
      'Release. Freeze on main'
    );
  });
});
