/**
 * The two side panels, Project and Design, and the read-only doc view. Both panels show one
 * shared `PanelModel`; each re-renders its parts when the model says the status changed,
 * while the Project panel's search box and its hits stay as the user left them.
 */
import { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import {
  IFailure,
  IJournalEntry,
  IStatus,
  isFailure,
  Kind,
  offByPolicy,
  PanelApi,
  Part
} from './api';
import { IOutcome, PanelModel } from './model';
import {
  el,
  IHandlers,
  IInsertTarget,
  renderConsent,
  renderFailure,
  renderPasteCode,
  renderFiles,
  renderGrants,
  renderHits,
  renderDesignJournal,
  renderJournal,
  renderLoading,
  renderNotice,
  renderOutcome,
  renderProject,
  renderService
} from './render';

/** The search box's placeholder: it fits the default sidebar width beside the button. */
export const SEARCH_PLACEHOLDER = 'Search docs';

/** What the plugin gives the panels: the JupyterLab side of their buttons. */
export interface IPanelHost {
  /** open a doc read-only in the main area */
  openDoc(path: string): void;
  /** add a `%project read` cell to the active notebook; false when there is none */
  insertCell(path: string): boolean;
  /** whether Insert cell can work now, and why not */
  insertTarget(): IInsertTarget;
  /** ask the user to confirm an action (a dialog in JupyterLab) */
  confirm(title: string, body: string, accept: string): Promise<boolean>;
}

/**
 * A failure that stands for the whole status: the status itself failed, or the service is
 * starting or unreachable (then every part fails the same way, and is said once).
 */
export function statusFailure(status: Part<IStatus>): IFailure | null {
  if (isFailure(status)) {
    return status;
  }
  const state = status.service.state;
  if (state === 'starting' || state === 'unreachable') {
    const kind = state === 'starting' ? Kind.starting : Kind.unreachable;
    const part = [status.project, status.design].find(
      p => isFailure(p) && p.error === kind
    ) as IFailure | undefined;
    return { error: kind, message: part?.message ?? '' };
  }
  return null;
}

abstract class SidePanel extends Widget {
  constructor(model: PanelModel, host: IPanelHost, title: string, id: string) {
    super();
    this.model = model;
    this.host = host;
    this.id = id;
    this.addClass('jdp-Panel');
    this.title.caption = title;
    const header = el('div', 'jdp-Header');
    header.appendChild(el('h2', 'jdp-Title', title, 'title'));
    const refresh = el(
      'button',
      'jp-Button jp-mod-styled jdp-Refresh',
      'Refresh',
      'refresh'
    );
    refresh.type = 'button';
    refresh.title =
      'Ask now (the panel also updates by itself every few seconds)';
    refresh.addEventListener('click', () => void this.model.refresh(true));
    header.appendChild(refresh);
    this.node.appendChild(header);
    this._banner = this.slot();
    this.model.changed.connect(this._onChanged, this);
  }

  readonly model: PanelModel;
  readonly host: IPanelHost;

  /** The handlers every rendered button calls. */
  protected get handlers(): IHandlers {
    return {
      openDoc: path => this.host.openDoc(path),
      insertCell: path => this._insert(path),
      signIn: mode => void this.act(() => this.model.signIn(mode)),
      finishSignIn: code => void this.act(() => this.model.finishSignIn(code)),
      setConsent: give => void this.act(() => this.model.setConsent(give)),
      revokeGrant: (id, name) =>
        void this.act(() => this.model.revokeGrant(id, name)),
      restore: entry => void this._restore(entry)
    };
  }

  /** Run an action, showing "Working…" and then its outcome in this panel. */
  protected async act(action: () => Promise<IOutcome>): Promise<void> {
    this.node.dataset.busy = 'true';
    this.outcome = { ok: true, text: 'Working…' };
    this.update();
    try {
      this.outcome = await action();
    } catch (reason) {
      this.outcome = { ok: false, text: String(reason) };
    } finally {
      delete this.node.dataset.busy;
    }
    this.update();
  }

  /** A new element in the panel, below the ones made before. */
  protected slot(): HTMLElement {
    const node = el('div', 'jdp-Slot');
    this.node.appendChild(node);
    return node;
  }

  protected fill(slot: HTMLElement, ...children: (HTMLElement | null)[]): void {
    slot.replaceChildren(
      ...children.filter((c): c is HTMLElement => c !== null)
    );
  }

  protected onAfterShow(msg: Message): void {
    void this.model.wake();
    this.update();
  }

  protected onUpdateRequest(msg: Message): void {
    const status = this.model.status;
    if (status === null) {
      this.fill(this._banner, renderLoading());
      this.renderParts(null);
      this.node.dataset.state = 'loading';
      return;
    }
    const failure = statusFailure(status);
    const service = isFailure(status) ? null : status.service;
    this.fill(
      this._banner,
      failure ? renderFailure(failure, this.handlers, service) : null,
      this.model.pasting ? renderPasteCode(this.handlers) : null
    );
    this.node.dataset.state = failure ? failure.error : 'ready';
    this.renderParts(failure || isFailure(status) ? null : status);
  }

  /** Render this panel's parts of a readable status (null: show none of them). */
  protected abstract renderParts(status: IStatus | null): void;

  protected outcome: IOutcome | null = null;

  private _onChanged(): void {
    this.update();
  }

  private _insert(path: string): void {
    const done = this.host.insertCell(path);
    this.outcome = done
      ? { ok: true, text: `Inserted a cell that reads ${path}.` }
      : { ok: false, text: this.host.insertTarget().why };
    this.update();
  }

  private async _restore(entry: IJournalEntry): Promise<void> {
    if (entry.restore === null) {
      return;
    }
    const ok = await this.host.confirm(
      `Restore journal entry #${entry.id}?`,
      entry.restore,
      'Restore'
    );
    if (ok) {
      await this.act(() => this.model.restore(entry.id));
    }
  }

  private _banner: HTMLElement;
}

/** The attached Project: name, instructions, budget, search, docs and uploads. */
export class ProjectPanel extends SidePanel {
  constructor(model: PanelModel, host: IPanelHost) {
    super(model, host, 'Project', 'jdp-project-panel');
    this._summary = this.slot();
    this._notice = this.slot();
    this._search = this._searchBox();
    this.node.appendChild(this._search);
    this._files = this.slot();
    this._outcome = this.slot();
    this._footer = this.slot();
  }

  /** Run a search and show its hits (what the search box's submit does). */
  async search(q: string): Promise<void> {
    const text = q.trim();
    if (!text) {
      return;
    }
    this._hits.replaceChildren(
      el('div', 'jdp-Muted', 'Searching…', 'searching')
    );
    const answer = await this.model.api.search(text, 5);
    this._lastSearch = answer;
    this._renderHits();
  }

  protected renderParts(status: IStatus | null): void {
    const project = status?.project ?? null;
    const attached = status !== null && project !== null && !isFailure(project);
    this.fill(
      this._summary,
      status ? renderProject(project, this.handlers, status.service) : null
    );
    this.fill(this._notice, renderNotice(status?.notice ?? null));
    this._search.hidden = !attached;
    this.fill(
      this._files,
      attached
        ? renderFiles(this.model.files, this.handlers, this.host.insertTarget())
        : null
    );
    this._renderHits();
    this.fill(this._outcome, renderOutcome(this.outcome));
    this.fill(this._footer, status ? renderService(status.service) : null);
  }

  private _renderHits(): void {
    if (this._lastSearch === null) {
      this._hits.replaceChildren();
      return;
    }
    this._hits.replaceChildren(
      renderHits(this._lastSearch, this.handlers, this.host.insertTarget())
    );
  }

  private _searchBox(): HTMLElement {
    const box = el('section', 'jdp-Section', undefined, 'search-section');
    box.appendChild(el('h3', 'jdp-SectionTitle', 'Search the knowledge'));
    const form = el('form', 'jdp-SearchForm', undefined, 'search-form');
    const input = el(
      'input',
      'jp-mod-styled jdp-SearchInput',
      undefined,
      'search-input'
    );
    input.type = 'search';
    // short enough for the default sidebar width; the label says it in full
    input.placeholder = SEARCH_PLACEHOLDER;
    input.setAttribute('aria-label', 'Search the Project’s knowledge');
    form.appendChild(input);
    const go = el(
      'button',
      'jp-Button jp-mod-styled jdp-Button',
      'Search',
      'search-button'
    );
    go.type = 'submit';
    form.appendChild(go);
    form.addEventListener('submit', event => {
      event.preventDefault();
      void this.search(input.value);
    });
    box.appendChild(form);
    this._hits = el('div', 'jdp-HitsSlot');
    box.appendChild(this._hits);
    return box;
  }

  private _summary: HTMLElement;
  private _notice: HTMLElement;
  private _search: HTMLElement;
  private _hits!: HTMLElement;
  private _files: HTMLElement;
  private _outcome: HTMLElement;
  private _footer: HTMLElement;
  private _lastSearch: Awaited<ReturnType<PanelApi['search']>> | null = null;
}

/**
 * Design authorizations and writes: consent, durable grants, the Design file writes this
 * machine sent, and the Project doc writes (the journal that can restore).
 */
export class DesignPanel extends SidePanel {
  constructor(model: PanelModel, host: IPanelHost) {
    super(model, host, 'Design', 'jdp-design-panel');
    this._consent = this.slot();
    this._grants = this.slot();
    this._outcome = this.slot();
    this._designJournal = this.slot();
    this._journal = this.slot();
    this._footer = this.slot();
  }

  protected renderParts(status: IStatus | null): void {
    const design = status?.design ?? null;
    this.fill(
      this._designJournal,
      status ? renderDesignJournal(this.model.designJournal) : null
    );
    this.fill(
      this._consent,
      status ? renderConsent(design, this.handlers, status.service) : null
    );
    this.fill(
      this._grants,
      status ? renderGrants(design, this.handlers) : null
    );
    this.fill(this._outcome, renderOutcome(this.outcome));
    this.fill(
      this._journal,
      status
        ? renderJournal(
            this.model.journal,
            this.handlers,
            offByPolicy(status.project)
          )
        : null
    );
    this.fill(this._footer, status ? renderService(status.service) : null);
  }

  private _consent: HTMLElement;
  private _grants: HTMLElement;
  private _outcome: HTMLElement;
  private _journal: HTMLElement;
  private _designJournal: HTMLElement;
  private _footer: HTMLElement;
}

/** A doc's text, read-only, for the main area (the plugin wraps it in a MainAreaWidget). */
export class DocView extends Widget {
  constructor(api: PanelApi, path: string) {
    super();
    this._api = api;
    this.path = path;
    this.addClass('jdp-DocView');
    this.node.dataset.jdp = 'doc-view';
    this.node.dataset.path = path;
    this.title.label = path;
    this.title.caption = `${path} (read-only)`;
    this.title.closable = true;
  }

  readonly path: string;

  /** Fetch the text again and show it. */
  async load(): Promise<void> {
    this.node.replaceChildren(
      el('div', 'jdp-Muted', `Loading ${this.path}…`, 'loading')
    );
    const answer = await this._api.doc(this.path);
    const children: HTMLElement[] = [];
    const head = el('div', 'jdp-DocHead');
    head.appendChild(el('span', 'jdp-Path', this.path, 'doc-path'));
    head.appendChild(el('span', 'jdp-Badge', 'read-only', 'read-only'));
    children.push(head);
    if (isFailure(answer)) {
      children.push(el('div', 'jdp-Error', answer.message, 'doc-error'));
    } else {
      if (answer.truncated) {
        children.push(
          el(
            'div',
            'jdp-Note',
            'Only the first 1 MiB is shown; %project read gives the whole doc.',
            'doc-truncated'
          )
        );
      }
      const pre = el('pre', 'jdp-DocText', answer.content, 'doc-content');
      pre.tabIndex = 0;
      children.push(pre);
    }
    this.node.replaceChildren(...children);
  }

  private _api: PanelApi;
}
