/**
 * What both panels show, fetched once for the two of them: the status, the attached
 * Project's files and the journal. A poll asks for the status every 3 s while a panel is
 * visible and the page is not hidden; the files and the journal are fetched again only when
 * the status's `version` changed, and the panels re-render only then. When a policy gate
 * closes both tools the panels say "off by policy" and the poll stops: there is nothing to
 * ask for until JupyterLab restarts with another policy.
 */
import { Poll } from '@lumino/polling';
import { ISignal, Signal } from '@lumino/signaling';

import {
  IDesign,
  IDesignJournal,
  IFiles,
  IJournal,
  IStatus,
  isFailure,
  offByPolicy,
  PanelApi,
  Part,
  SignInMode
} from './api';

/** How often the status is asked for while a panel is visible (ms). */
export const POLL_INTERVAL_MS = 3000;

/** An action's outcome, shown in the panel it was started from until the next action. */
export interface IOutcome {
  ok: boolean;
  text: string;
}

export interface IModelOptions {
  /** whether a panel that shows this model is visible now */
  isVisible: () => boolean;
  /**
   * opens a tab for the sign-in page, at once, while the click still allows a new tab;
   * the tab is sent to the login route's URL when it arrives (default: `blankTab`)
   */
  openTab?: () => ISignInTab;
  interval?: number;
}

/** A tab opened at a click, sent to its page once the page's URL is known. */
export interface ISignInTab {
  go(url: string): void;
  close(): void;
}

/**
 * A blank tab opened now: a browser allows a new tab only within a few seconds of the
 * click (transient user activation, 5 s in Chromium), and asking the server for the
 * sign-in URL may take longer on a busy server. The tab cannot reach this page (its
 * opener is cleared before it navigates).
 */
export function blankTab(): ISignInTab {
  const tab = window.open('', '_blank');
  if (tab) {
    tab.opener = null;
  }
  return {
    go: url => {
      if (tab && !tab.closed) {
        tab.location.href = url;
      } else {
        window.open(url, '_blank', 'noopener');
      }
    },
    close: () => tab?.close()
  };
}

/**
 * The key that tells "the files or the journal may have changed": the project's revision,
 * or the failure that stands in for the project.
 */
export function revisionKey(status: Part<IStatus> | null): string {
  if (status === null) {
    return '';
  }
  if (isFailure(status)) {
    return `failure:${status.error}`;
  }
  const project = status.project;
  if (project === null || isFailure(project)) {
    return `project-failure:${project?.error ?? 'none'}`;
  }
  return `revision:${project.revision}`;
}

/** The key that tells "the Design write journal may have changed". */
export function designJournalKey(status: Part<IStatus> | null): string {
  if (status === null || isFailure(status)) {
    return '';
  }
  const design = status.design;
  if (design === null || isFailure(design)) {
    return `design-failure:${design?.error ?? 'none'}`;
  }
  return `journal:${design.journal_revision ?? ''}`;
}

/** The key that tells "changed": the status's version, or the failure it is. */
export function statusKey(status: Part<IStatus> | null): string {
  if (status === null) {
    return '';
  }
  if (isFailure(status)) {
    return `failure:${status.error}:${status.message}`;
  }
  return `version:${status.version}`;
}

/** Whether a policy gate closes both tools, so that nothing is left to poll for. */
export function allOffByPolicy(status: Part<IStatus> | null): boolean {
  return (
    status !== null &&
    !isFailure(status) &&
    offByPolicy(status.project) !== null &&
    offByPolicy(status.design) !== null
  );
}

export class PanelModel {
  constructor(api: PanelApi, options: IModelOptions) {
    this.api = api;
    this._isVisible = options.isVisible;
    this._openTab = options.openTab ?? blankTab;
    this._poll = new Poll({
      auto: false,
      factory: () => this.refresh(),
      frequency: {
        interval: options.interval ?? POLL_INTERVAL_MS,
        backoff: false
      },
      linger: 0,
      name: 'jupyter-design-projects:status',
      standby: () => (this._isVisible() ? 'when-hidden' : true)
    });
  }

  readonly api: PanelApi;

  /** Emitted after a refresh that changed what the panels show. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get status(): Part<IStatus> | null {
    return this._status;
  }

  get files(): Part<IFiles> | null {
    return this._files;
  }

  get journal(): Part<IJournal> | null {
    return this._journal;
  }

  /** The Design writes this machine sent (decks, write_files, deletes, copies). */
  get designJournal(): Part<IDesignJournal> | null {
    return this._designJournal;
  }

  /** When the last answer arrived (null before the first one). */
  get updated(): Date | null {
    return this._updated;
  }

  /** The attached project, when it could be read. */
  get project(): IStatus['project'] {
    const status = this._status;
    return status === null || isFailure(status) ? null : status.project;
  }

  get isDisposed(): boolean {
    return this._poll.isDisposed;
  }

  /** Whether the status is still asked for by itself (false once both tools are off). */
  get polling(): boolean {
    return !this._poll.isDisposed && this._poll.state.phase !== 'stopped';
  }

  /** Start polling (the first tick asks at once if a panel is visible). */
  start(): Promise<void> {
    return this._poll.start();
  }

  /** A panel was shown: ask now rather than at the next tick. */
  wake(): Promise<void> {
    return this._poll.refresh();
  }

  /**
   * Ask for the status; on a new version (or `full`, after an action that may not change
   * it) also the files and the journal. Calls made while one runs share its result, plus
   * one more round so that an action's effect is always seen.
   */
  refresh(full = false): Promise<void> {
    this._full = this._full || full;
    if (this._running) {
      if (!this._again) {
        this._again = this._running.then(() => {
          this._again = null;
          return this.refresh();
        });
      }
      return this._again;
    }
    const full_ = this._full;
    this._full = false;
    this._running = this._fetch(full_).finally(() => {
      this._running = null;
    });
    return this._running;
  }

  /** Give or revoke the Design consent; the new design part shows at once. */
  async setConsent(give: boolean): Promise<IOutcome> {
    const design = give
      ? await this.api.giveConsent()
      : await this.api.revokeConsent();
    return this._designChanged(
      design,
      give
        ? 'Consent given.'
        : 'Consent revoked; the durable grants are cleared.'
    );
  }

  async revokeGrant(projectId: string, projectName: string): Promise<IOutcome> {
    const design = await this.api.revokeGrant(projectId);
    return this._designChanged(
      design,
      `The durable grant for ${projectName} is revoked.`
    );
  }

  async restore(entryId: number): Promise<IOutcome> {
    const answer = await this.api.restore(entryId);
    await this.refresh(true);
    return isFailure(answer)
      ? { ok: false, text: answer.message }
      : { ok: true, text: answer.message };
  }

  /** Whether a paste-mode sign-in waits for the code its page shows. */
  get pasting(): boolean {
    return this._pasting;
  }

  /**
   * Sign in: the server begins the attempt and answers the sign-in page's URL (through
   * the address this browser uses), opened in a new tab. With `redirect` the page comes
   * back to the server, and the poll sees the credential once it is stored; with `paste`
   * the page shows a code to paste into this panel (`finishSignIn`).
   */
  async signIn(mode: SignInMode = 'redirect'): Promise<IOutcome> {
    const tab = this._openTab(); // now, while the click allows it
    const answer = await this.api.login(mode);
    if (isFailure(answer) || !answer.url) {
      tab.close();
    }
    if (isFailure(answer)) {
      return { ok: false, text: answer.message };
    }
    if (answer.url) {
      this._pasting = mode === 'paste';
      tab.go(answer.url);
      await this.refresh(true);
      return {
        ok: true,
        text:
          mode === 'paste'
            ? 'Click Authorize in the new tab, then paste the code it shows below.'
            : 'Finish signing in in the new tab; this panel updates by itself.'
      };
    }
    await this.refresh(true);
    return { ok: true, text: 'Signed in.' };
  }

  /** Finish a paste-mode sign-in; a bad code keeps the attempt for another try. */
  async finishSignIn(code: string): Promise<IOutcome> {
    if (!code.trim()) {
      return {
        ok: false,
        text: 'Paste the code the sign-in page shows first.'
      };
    }
    const answer = await this.api.finishLogin(code.trim());
    if (isFailure(answer)) {
      return { ok: false, text: answer.message };
    }
    this._pasting = false;
    await this.refresh(true);
    return { ok: true, text: 'Signed in.' };
  }

  dispose(): void {
    this._poll.dispose();
    Signal.clearData(this);
  }

  private async _designChanged(
    design: Part<IDesign>,
    done: string
  ): Promise<IOutcome> {
    if (isFailure(design)) {
      await this.refresh(true);
      return { ok: false, text: design.message };
    }
    const status = this._status;
    if (status !== null && !isFailure(status)) {
      this._status = { ...status, design };
      this._changed.emit();
    }
    await this.refresh(true);
    return { ok: true, text: done };
  }

  private async _fetch(full: boolean): Promise<void> {
    const status = await this.api.status();
    if (this.isDisposed) {
      return;
    }
    const changed = statusKey(status) !== statusKey(this._status);
    const revised = revisionKey(status) !== revisionKey(this._status);
    const designRevised =
      designJournalKey(status) !== designJournalKey(this._status);
    this._updated = new Date();
    if (!changed && !full) {
      return;
    }
    let files = this._files;
    let journal = this._journal;
    let designJournal = this._designJournal;
    if (isFailure(status)) {
      files = journal = designJournal = null;
    } else {
      const project = status.project;
      const attached = project !== null && !isFailure(project);
      const readProject = revised || full;
      [files, journal, designJournal] = await Promise.all([
        !readProject
          ? Promise.resolve(files)
          : attached
            ? this.api.files()
            : Promise.resolve(null),
        readProject ? this.api.journal() : Promise.resolve(journal),
        designRevised || full
          ? this.api.designJournal()
          : Promise.resolve(designJournal)
      ]);
    }
    if (this.isDisposed) {
      return;
    }
    this._status = status;
    this._files = files;
    this._journal = journal;
    this._designJournal = designJournal;
    this._changed.emit();
    if (allOffByPolicy(status)) {
      void this._poll.stop();
    }
  }

  private _isVisible: () => boolean;
  private _openTab: () => ISignInTab;
  private _pasting = false;
  private _poll: Poll;
  private _changed = new Signal<this, void>(this);
  private _status: Part<IStatus> | null = null;
  private _files: Part<IFiles> | null = null;
  private _journal: Part<IJournal> | null = null;
  private _designJournal: Part<IDesignJournal> | null = null;
  private _updated: Date | null = null;
  private _running: Promise<void> | null = null;
  private _again: Promise<void> | null = null;
  private _full = false;
}
