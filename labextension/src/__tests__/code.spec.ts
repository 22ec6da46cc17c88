import { DisposableSet } from '@lumino/disposable';

import { CODE_MIME, codeRendererFactory, ICodeHost } from '../code';

function model(data: unknown): any {
  return { data: { [CODE_MIME]: data }, metadata: {}, trusted: false };
}

function host(inserted = true): ICodeHost & {
  copied: string[];
  inserts: string[];
} {
  const copied: string[] = [];
  const inserts: string[] = [];
  return {
    copied,
    inserts,
    copy: text => copied.push(text),
    insertBelow: (_node, code) => {
      inserts.push(code);
      return inserted;
    }
  };
}

let made = new DisposableSet();
afterEach(() => {
  made.dispose();
  made = new DisposableSet();
});

async function rendered(h: ICodeHost, data: unknown): Promise<HTMLElement> {
  const renderer = codeRendererFactory(h).createRenderer({} as any);
  made.add(renderer);
  await renderer.renderModel(model(data));
  return renderer.node;
}

function find(root: HTMLElement, role: string): HTMLElement[] {
  return Array.from(root.querySelectorAll(`[data-jdp="${role}"]`));
}

describe('the code renderer', () => {
  it('is safe and ahead of the HTML the kernel sends beside it', () => {
    const factory = codeRendererFactory(host());
    expect(factory.safe).toBe(true);
    expect(factory.mimeTypes).toEqual([CODE_MIME]);
    expect(factory.defaultRank).toBeLessThan(50); // JupyterLab's HTML renderer's rank
  });

  it('shows the code as text and copies exactly it', async () => {
    const h = host();
    const code =
      '%%design write_files\n{"files": []}\n<img src=x onerror=alert(1)>';
    const node = await rendered(h, { code, insert: true });
    expect(find(node, 'code-text')[0].textContent).toBe(code);
    expect(node.querySelector('img')).toBeNull();
    find(node, 'code-copy')[0].click();
    expect(h.copied).toEqual([code]);
    expect(find(node, 'code-status')[0].textContent).toBe(
      'Copied to the clipboard.'
    );
  });

  it('inserts the code below, and says so, or says why it could not', async () => {
    for (const [works, said] of [
      [true, 'Inserted as a new cell below.'],
      [false, 'Open the notebook this output is in to insert a cell.']
    ] as const) {
      const h = host(works);
      const node = await rendered(h, { code: 'x = 1', insert: true });
      find(node, 'code-insert')[0].click();
      expect(h.inserts).toEqual(['x = 1']);
      expect(find(node, 'code-status')[0].textContent).toBe(said);
    }
  });

  it('draws no Insert button for code that does not run as a cell', async () => {
    const node = await rendered(host(), { code: 'curl …', insert: false });
    expect(find(node, 'code-insert')).toHaveLength(0);
    expect(find(node, 'code-copy')).toHaveLength(1);
  });

  it('draws no button for data that holds no code', async () => {
    const node = await rendered(host(), { code: 5 });
    expect(node.querySelectorAll('button')).toHaveLength(0);
    expect(find(node, 'code-unreadable')).toHaveLength(1);
  });
});
