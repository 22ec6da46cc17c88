// reveal.js's files that the HTML deck export inlines, copied from node_modules into the
// Python package (jupyter_design_projects/design/deck/reveal_assets, gitignored, shipped in
// the wheel and the sdist): the core script and stylesheet, the speaker-notes plugin, the
// light (white) and dark (black) themes without their embedded web fonts, and the licence.
// Run by `jlpm build` (so by the hatch build hook and `python3 tasks.py`).
import {
  copyFileSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(
  here,
  '..',
  'jupyter_design_projects',
  'design',
  'deck',
  'reveal_assets'
);
// the package's main file is dist/reveal.js: its folder's parent is the package
const dist = dirname(createRequire(import.meta.url).resolve('reveal.js'));
const root = dirname(dist);

// a theme's @font-face rules embed about 570 KB of base64 web fonts; without them the
// theme's font stack falls back to the system's sans-serif (a deck's own look sets its fonts)
const FONT_FACE = /@font-face\{[^}]*\}/g;

function theme(name) {
  const css = readFileSync(join(dist, 'theme', `${name}.css`), 'utf8').replace(
    FONT_FACE,
    ''
  );
  if (/@font-face|@import|url\((?!data:)/.test(css)) {
    throw new Error(`reveal.js theme ${name}.css still loads a font or a file`);
  }
  writeFileSync(join(out, `theme-${name}.css`), css);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
copyFileSync(join(dist, 'reveal.js'), join(out, 'reveal.js'));
copyFileSync(join(dist, 'reveal.css'), join(out, 'reveal.css'));
copyFileSync(join(dist, 'plugin', 'notes.js'), join(out, 'notes.js'));
copyFileSync(join(root, 'LICENSE'), join(out, 'LICENSE'));
theme('white');
theme('black');
const { version } = JSON.parse(
  readFileSync(join(root, 'package.json'), 'utf8')
);
writeFileSync(join(out, 'VERSION'), `${version}\n`);
