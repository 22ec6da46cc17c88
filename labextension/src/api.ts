/**
 * The side panels' server API (docs/panel-api.md): its answer shapes, and one client that
 * turns every answer into either its value or a failure object. Nothing here throws for an
 * expected failure, so a panel always has something to show.
 *
 * The client sends through a `Send` function; the plugin gives it one built on
 * `ServerConnection.makeRequest` (auth and the XSRF header, as JupyterLab's own calls), and
 * the unit tests give it a fake.
 */

/** A part that could not be read: its kind and one sentence naming the next step. */
export interface IFailure {
  error: string;
  message: string;
  /** with `off_by_policy`: the gate that closes the tool (e.g. `allow_design_sync`) */
  setting?: string;
}

export type Part<T> = T | IFailure;

export interface IService {
  base_url: string | null;
  /** how a person elsewhere should read where the service is (the embedded one: "the
   * embedded reference service, on this Jupyter server"); shown instead of base_url */
  label?: string | null;
  reference: boolean;
  state: 'ready' | 'starting' | 'unreachable' | string;
}

export interface IProject {
  uuid: string;
  name: string;
  instructions: string;
  docs: number;
  uploads: number;
  /** the service's estimated tokens; null when it gave none */
  knowledge_size: number | null;
  max_knowledge_size: number | null;
  search_enabled: boolean;
  search_threshold: number | null;
  /** changes when a doc or upload comes, goes or changes size, or the journal grows */
  revision: string;
}

export interface IGrant {
  project_id: string;
  /** null when the name could not be read safely (the id still shows) */
  project_name: string | null;
  created_at: string;
}

export interface IDesign {
  /** null: the consent could not be read */
  consent: boolean | null;
  grants: IGrant[];
  /** changes when the local journal of Design writes gains, settles or drops an entry */
  journal_revision?: string;
}

export interface IStatus {
  version: string;
  service: IService;
  project: Part<IProject> | null;
  design: Part<IDesign> | null;
  notice: string | null;
}

export interface IDoc {
  uuid: string;
  path: string;
  /** null for a doc: the service gives its size as estimated tokens */
  bytes: number | null;
  tokens?: number | null;
  created_at: string | null;
}

export interface IUpload extends IDoc {
  kind: string;
  bytes: number;
}

export interface IFiles {
  docs: IDoc[];
  uploads: IUpload[];
}

export interface IHit {
  name: string;
  doc_uuid: string;
  text: string;
}

export interface ISearch {
  rag: boolean;
  hits: IHit[];
  /** with `rag: false`: why there are no hits */
  note?: string | null;
}

export interface IDocText {
  path: string;
  content: string;
  truncated: boolean;
}

export interface IJournalEntry {
  id: number;
  time: string;
  action: string;
  project_uuid: string;
  path: string;
  bytes: number | null;
  /** who approved the change, in words (projects/journal.py APPROVED_WORDS) */
  approved?: string;
  /** the entry's restore rule, declared once by the journal (projects/journal.py) */
  restore_kind: RestoreKind;
  /** what Restore will do, or null when the entry cannot be restored */
  restore: string | null;
}

/**
 * How a journal entry can be restored: write_back (the earlier content was kept),
 * created (the write created the doc: nothing came before it), nothing_kept.
 */
export type RestoreKind = 'write_back' | 'created' | 'nothing_kept';

export interface IJournal {
  entries: IJournalEntry[];
}

/** One path a Design write changed (design/write_journal.py declares the changes). */
export interface IDesignChange {
  /** null for a call that touches no paths (a new project, a sharing change) */
  path: string | null;
  /** created, replaced, written, deleted, copied, or the operation's name */
  change: string;
  bytes: number | null;
  /** where a copy came from, or what a pathless call set */
  detail: string | null;
}

/** One Design write this machine sent, as its journal recorded it. */
export interface IDesignWrite {
  id: number;
  time: string;
  operation: string;
  project_id: string;
  project_name: string | null;
  /** plan, grant or card: what let it run */
  authority: string;
  /** that authority in words (a plan by its path counts and expiry, never its token) */
  authority_detail: string;
  /** done, or unknown (sent and never answered) */
  outcome: string;
  changes: IDesignChange[];
}

export interface IDesignJournal {
  entries: IDesignWrite[];
}

/** How a sign-in is begun: the page sends the browser back to this server, or shows a
 * code to paste into the panel. */
export type SignInMode = 'redirect' | 'paste';

export interface ILogin {
  signed_in?: boolean;
  /** the sign-in page to open, through this server's address */
  url?: string;
  mode?: SignInMode;
}

export interface IMessage {
  message: string;
}

/** The least of a fetch `Response` the client reads (a fake needs no more). */
export interface IAnswer {
  ok: boolean;
  status: number;
  json(): Promise<unknown>;
}

/** Send one request to `<base_url>/jupyter-design-projects/<path>`. */
export type Send = (
  path: string,
  init: { method: string; body?: string }
) => Promise<IAnswer>;

/** The failure kinds the panels treat specially (any other kind is the service's own). */
export const Kind = {
  starting: 'service_starting',
  unreachable: 'service_unreachable',
  notSignedIn: 'not_signed_in',
  noProject: 'no_attached_project',
  /** the Jupyter server itself did not answer */
  startFailed: 'service_start_failed',
  invalidArgument: 'invalid_argument',
  network: 'network_error',
  /** the Jupyter server answered, but not with this API's JSON */
  badAnswer: 'bad_answer',
  /** a policy gate closes the tool: nothing is asked of the service for it */
  offByPolicy: 'off_by_policy'
} as const;

export function isFailure(value: unknown): value is IFailure {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as IFailure).error === 'string'
  );
}

/** The part, when a policy gate closes its tool (then the panel neither polls nor acts). */
export function offByPolicy(part: unknown): IFailure | null {
  return isFailure(part) && part.error === Kind.offByPolicy ? part : null;
}

/** The bounds of `n` for a search, as the route enforces them. */
export const SEARCH_N = { min: 1, max: 15 };
export const JOURNAL_N = 50;

/** `key=value&…` with each part encoded; undefined values are left out. */
function query(params: Record<string, string | number>): string {
  return Object.entries(params)
    .map(
      ([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`
    )
    .join('&');
}

export class PanelApi {
  constructor(send: Send) {
    this._send = send;
  }

  status(): Promise<Part<IStatus>> {
    return this._call<IStatus>('GET', 'status');
  }

  files(): Promise<Part<IFiles>> {
    return this._call<IFiles>('GET', 'project/files');
  }

  search(q: string, n = 5): Promise<Part<ISearch>> {
    const count = Math.min(SEARCH_N.max, Math.max(SEARCH_N.min, Math.round(n)));
    return this._call<ISearch>(
      'GET',
      `project/search?${query({ q, n: count })}`
    );
  }

  doc(path: string): Promise<Part<IDocText>> {
    return this._call<IDocText>('GET', `project/doc?${query({ path })}`);
  }

  giveConsent(): Promise<Part<IDesign>> {
    return this._call<IDesign>('POST', 'design/consent', {});
  }

  revokeConsent(): Promise<Part<IDesign>> {
    return this._call<IDesign>('DELETE', 'design/consent');
  }

  revokeGrant(projectId: string): Promise<Part<IDesign>> {
    return this._call<IDesign>(
      'DELETE',
      `design/grants/${encodeURIComponent(projectId)}`
    );
  }

  journal(n = JOURNAL_N): Promise<Part<IJournal>> {
    return this._call<IJournal>('GET', `journal?${query({ n })}`);
  }

  designJournal(n = JOURNAL_N): Promise<Part<IDesignJournal>> {
    return this._call<IDesignJournal>('GET', `design/journal?${query({ n })}`);
  }

  restore(entryId: number): Promise<Part<IMessage>> {
    return this._call<IMessage>(
      'POST',
      `journal/${encodeURIComponent(String(entryId))}/restore`,
      {}
    );
  }

  login(mode: SignInMode = 'redirect'): Promise<Part<ILogin>> {
    return this._call<ILogin>('POST', 'login', { mode });
  }

  /** Finish a paste-mode sign-in with the `code#state` the sign-in page showed. */
  finishLogin(code: string): Promise<Part<ILogin>> {
    return this._call<ILogin>('POST', 'login/finish', { code });
  }

  private async _call<T>(
    method: string,
    path: string,
    body?: Record<string, unknown>
  ): Promise<Part<T>> {
    let answer: IAnswer;
    try {
      answer = await this._send(path, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body)
      });
    } catch (reason) {
      return {
        error: Kind.network,
        message: `The Jupyter server did not answer (${describe(reason)}): is it still running?`
      };
    }
    let value: unknown;
    try {
      value = await answer.json();
    } catch {
      return {
        error: Kind.badAnswer,
        message: `The Jupyter server answered HTTP ${answer.status} to ${method} ${path.split('?')[0]} without JSON: is the jupyter_design_projects server extension enabled?`
      };
    }
    if (isFailure(value)) {
      const failure: IFailure = {
        error: value.error,
        message: String(value.message ?? '')
      };
      if (typeof value.setting === 'string') {
        failure.setting = value.setting;
      }
      return failure;
    }
    if (!answer.ok || typeof value !== 'object' || value === null) {
      return {
        error: Kind.badAnswer,
        message: `The Jupyter server answered HTTP ${answer.status} to ${method} ${path.split('?')[0]}: is the jupyter_design_projects server extension enabled?`
      };
    }
    return value as T;
  }

  private _send: Send;
}

function describe(reason: unknown): string {
  if (reason instanceof Error) {
    return reason.message || reason.name;
  }
  return String(reason);
}
