/**
 * Code to copy, as `%design history --copy N` returns it: a renderer for the kernel's
 * CODE_MIME output (notebook/history_view.py) that shows the code with a Copy button and,
 * when the code runs as a cell, an "Insert as a new cell below" button. The kernel sends
 * plain HTML beside it, so a frontend without this extension shows the code with no
 * buttons at all: a button is drawn only where the code that makes it work is loaded.
 * Everything is text nodes; nothing in the output is parsed as HTML or run.
 */
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

/** The MIME type the kernel sends code to copy as (notebook/history_view.py CODE_MIME). */
export const CODE_MIME = 'application/vnd.jupyter-design-projects.code+json';

/** What the buttons do, given by the plugin (the system clipboard, the notebook). */
export interface ICodeHost {
  /** Put `text` on the system clipboard. */
  copy(text: string): void;
  /** Insert `code` as a new code cell below the cell whose output holds `node`;
   * false when that cell is not in an open notebook. */
  insertBelow(node: HTMLElement, code: string): boolean;
}

interface ICodeData {
  code: string;
  insert: boolean;
}

function codeData(value: unknown): ICodeData | null {
  if (typeof value !== 'object' || value === null) {
    return null;
  }
  const record = value as Record<string, unknown>;
  if (typeof record.code !== 'string') {
    return null;
  }
  return { code: record.code, insert: record.insert === true };
}

function tagged<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  role: string,
  text?: string
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.dataset.jdp = role;
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

/** One code output: the code, its buttons and what the last click did. */
export class CodeRenderer extends Widget implements IRenderMime.IRenderer {
  constructor(private readonly _host: ICodeHost) {
    super();
    this.addClass('jdp-Code');
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this.node.replaceChildren();
    const data = codeData(model.data[CODE_MIME]);
    if (data === null) {
      this.node.appendChild(
        tagged('div', 'code-unreadable', 'This output holds no code to copy.')
      );
      return Promise.resolve();
    }
    const pre = tagged('pre', 'code-text', data.code);
    pre.style.whiteSpace = 'pre-wrap';
    const status = tagged('span', 'code-status');
    status.setAttribute('role', 'status');
    const actions = tagged('div', 'code-actions');
    actions.appendChild(
      this._button('Copy', 'code-copy', () => {
        this._host.copy(data.code);
        status.textContent = 'Copied to the clipboard.';
      })
    );
    if (data.insert) {
      actions.appendChild(
        this._button('Insert as a new cell below', 'code-insert', () => {
          status.textContent = this._host.insertBelow(this.node, data.code)
            ? 'Inserted as a new cell below.'
            : 'Open the notebook this output is in to insert a cell.';
        })
      );
    }
    actions.appendChild(status);
    this.node.append(pre, actions);
    return Promise.resolve();
  }

  private _button(
    label: string,
    role: string,
    click: () => void
  ): HTMLButtonElement {
    const button = tagged('button', role, label);
    button.type = 'button';
    button.className = 'jp-Button jp-mod-styled jp-mod-reject';
    button.addEventListener('click', click);
    return button;
  }
}

/** The renderer factory: safe (it draws text only), ahead of the HTML beside it. */
export function codeRendererFactory(
  host: ICodeHost
): IRenderMime.IRendererFactory {
  return {
    safe: true,
    mimeTypes: [CODE_MIME],
    defaultRank: 40,
    createRenderer: () => new CodeRenderer(host)
  };
}
