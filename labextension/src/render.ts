/**
 * The panels' DOM, built from the API's answers with text nodes only (nothing from the
 * service is parsed as HTML). Each function returns a fresh element; the panels put it in
 * place of the old one. Every element a test or a user may look for has `data-jdp`.
 */
import {
  IDesign,
  IDesignWrite,
  IDesignJournal,
  IDoc,
  IFailure,
  IFiles,
  IJournal,
  IJournalEntry,
  IProject,
  ISearch,
  IService,
  isFailure,
  IUpload,
  Kind,
  offByPolicy,
  Part,
  SignInMode
} from './api';
import {
  budgetShares,
  formatBytes,
  formatCount,
  formatDate,
  formatPercent,
  formatSize,
  snippetText
} from './format';

/** What the rendered buttons do; each returns when its work is done. */
export interface IHandlers {
  openDoc(path: string): void;
  insertCell(path: string): void;
  /** begin a sign-in (`redirect` unless told `paste`) */
  signIn(mode?: SignInMode): void;
  /** finish a paste-mode sign-in with the code the page showed */
  finishSignIn?(code: string): void;
  setConsent(give: boolean): void;
  revokeGrant(projectId: string, projectName: string): void;
  restore(entry: IJournalEntry): void;
}

/** Whether "Insert cell" can work now, and why not. */
export interface IInsertTarget {
  enabled: boolean;
  why: string;
}

export const PLAN_NOTE =
  'Plan tokens (15-minute path grants) live inside each kernel and are not shown here.';

export const ATTACH_HOWTO =
  'Set CLAUDE_PROJECT_UUID to the Project’s UUID in the environment that starts ' +
  'JupyterLab (for example `CLAUDE_PROJECT_UUID=… jupyter lab`), then restart JupyterLab ' +
  'and the kernels.';

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text?: string,
  role?: string
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) {
    node.textContent = text;
  }
  if (role) {
    node.dataset.jdp = role;
  }
  return node;
}

export function button(
  label: string,
  role: string,
  onClick: () => void,
  options: { title?: string; primary?: boolean; disabled?: boolean } = {}
): HTMLButtonElement {
  const node = el(
    'button',
    `jp-Button jp-mod-styled jdp-Button ${options.primary ? 'jp-mod-accept' : 'jdp-mod-secondary'}`,
    label,
    role
  );
  node.type = 'button';
  if (options.title) {
    node.title = options.title;
    node.setAttribute('aria-label', `${label}: ${options.title}`);
  }
  node.disabled = options.disabled ?? false;
  node.addEventListener('click', event => {
    event.preventDefault();
    onClick();
  });
  return node;
}

export function section(title: string, role: string): HTMLElement {
  const box = el('section', 'jdp-Section', undefined, role);
  box.appendChild(el('h3', 'jdp-SectionTitle', title));
  return box;
}

/** The headline and the next step for each failure kind the panels know. */
export function describeFailure(
  failure: IFailure,
  service?: IService | null
): { title: string; detail: string } {
  switch (failure.error) {
    case Kind.starting:
      return {
        title: 'Starting the reference service…',
        detail: failure.message
      };
    case Kind.unreachable: {
      const named = service?.label ?? service?.base_url;
      const where = named ? `No answer from ${named}` : 'No answer';
      return {
        title: `${where}: is the service running?`,
        detail: failure.message
      };
    }
    case Kind.notSignedIn:
      return { title: 'Not signed in', detail: failure.message };
    case Kind.noProject:
      return { title: 'No Project is attached', detail: ATTACH_HOWTO };
    case Kind.startFailed:
      return {
        title: 'The reference service did not start',
        detail: failure.message
      };
    case Kind.network:
      return {
        title: 'The Jupyter server does not answer',
        detail: failure.message
      };
    case Kind.offByPolicy:
      return {
        title: failure.setting
          ? `Off by policy (${failure.setting})`
          : 'Off by policy',
        detail: failure.message
      };
    case Kind.badAnswer:
      return {
        title: 'The Jupyter server did not answer as the panel API does',
        detail: failure.message
      };
    default:
      return {
        title: `The service answered with an error (${failure.error})`,
        detail: failure.message
      };
  }
}

/** A failure as a state box: headline, next step, and for `not_signed_in` a Sign in button. */
export function renderFailure(
  failure: IFailure,
  handlers: Pick<IHandlers, 'signIn'>,
  service?: IService | null
): HTMLElement {
  const { title, detail } = describeFailure(failure, service);
  const box = el('div', 'jdp-State', undefined, 'state');
  box.dataset.kind = failure.error;
  if (failure.setting) {
    box.dataset.setting = failure.setting;
  }
  box.classList.add(
    failure.error === Kind.starting ||
      failure.error === Kind.noProject ||
      failure.error === Kind.offByPolicy
      ? 'jdp-mod-info'
      : 'jdp-mod-error'
  );
  box.appendChild(el('div', 'jdp-StateTitle', title, 'state-title'));
  if (detail) {
    box.appendChild(el('div', 'jdp-StateDetail', detail, 'state-detail'));
  }
  if (failure.error === Kind.notSignedIn) {
    box.appendChild(
      button('Sign in', 'sign-in', () => handlers.signIn('redirect'), {
        primary: true,
        title:
          'Open the sign-in page in a new tab; it comes back to this Jupyter server'
      })
    );
    box.appendChild(
      button(
        'Sign in with a code',
        'sign-in-paste',
        () => handlers.signIn('paste'),
        {
          title:
            'Open the sign-in page in a new tab; paste the code it shows into this panel'
        }
      )
    );
  }
  return box;
}

/** The paste box of a paste-mode sign-in: the code the sign-in page shows, and Finish. */
export function renderPasteCode(
  handlers: Pick<IHandlers, 'finishSignIn'>
): HTMLElement {
  const form = el('form', 'jdp-PasteCode', undefined, 'paste-code-form');
  const label = el(
    'label',
    'jdp-Muted',
    'Paste the code the sign-in page shows (code#state):'
  );
  const input = el(
    'input',
    'jp-mod-styled jdp-PasteInput',
    undefined,
    'paste-code'
  );
  input.type = 'text';
  input.autocomplete = 'off';
  input.spellcheck = false;
  input.id = 'jdp-paste-code';
  label.htmlFor = input.id;
  const finish = (): void => handlers.finishSignIn?.(input.value);
  form.addEventListener('submit', event => {
    event.preventDefault();
    finish();
  });
  form.append(
    label,
    input,
    button('Finish sign-in', 'finish-sign-in', finish, { primary: true })
  );
  return form;
}

/** A notice the service sent with the status (e.g. a sign-in that gained scopes). */
export function renderNotice(notice: string | null): HTMLElement | null {
  return notice ? el('p', 'jdp-Notice', notice, 'notice') : null;
}

/** Before the first answer. */
export function renderLoading(): HTMLElement {
  return el('div', 'jdp-Muted', 'Loading…', 'loading');
}

/** Where the service is, one line at the foot of each panel. */
export function renderService(service: IService): HTMLElement {
  const line = el('div', 'jdp-Service', undefined, 'service');
  line.appendChild(el('span', 'jdp-Muted', 'Service: '));
  line.appendChild(
    el(
      'span',
      'jdp-Url',
      service.label ?? service.base_url ?? 'not configured',
      'base-url'
    )
  );
  if (service.reference) {
    line.appendChild(
      el('span', 'jdp-Badge', 'offline reference service', 'reference')
    );
  }
  return line;
}

// ---------------------------------------------------------------- Project panel

/** The knowledge budget: a bar with the search threshold marked, and the figures. */
export function renderBudget(project: IProject): HTMLElement {
  const box = el('div', 'jdp-Budget', undefined, 'budget');
  const size = project.knowledge_size;
  const max = project.max_knowledge_size;
  if (size === null || max === null) {
    box.appendChild(
      el(
        'div',
        'jdp-Muted',
        'The service did not report the knowledge size.',
        'budget-used'
      )
    );
    box.appendChild(searchMode(project));
    return box;
  }
  const shares = budgetShares(size, max, project.search_threshold);
  const bar = el('div', 'jdp-BudgetBar', undefined, 'knowledge-meter');
  bar.setAttribute('role', 'meter');
  bar.setAttribute('aria-label', 'Knowledge budget used');
  bar.setAttribute('aria-valuemin', '0');
  bar.setAttribute('aria-valuemax', String(max));
  bar.setAttribute('aria-valuenow', String(size));
  const used = el('div', 'jdp-BudgetUsed');
  used.style.width = `${(shares.used * 100).toFixed(2)}%`;
  if (shares.threshold !== null && shares.used >= shares.threshold) {
    used.classList.add('jdp-mod-over');
  }
  bar.appendChild(used);
  if (shares.threshold !== null) {
    const mark = el('div', 'jdp-BudgetThreshold', undefined, 'threshold-mark');
    mark.style.left = `${(shares.threshold * 100).toFixed(2)}%`;
    mark.title = `Search threshold: ${formatCount(project.search_threshold ?? 0)} tokens`;
    bar.appendChild(mark);
  }
  box.appendChild(bar);
  box.appendChild(
    el(
      'div',
      'jdp-Line',
      `${formatCount(size)} of ${formatCount(max)} ` +
        `tokens used (${formatPercent(shares.used)})`,
      'budget-used'
    )
  );
  box.appendChild(
    el(
      'div',
      'jdp-Line',
      project.search_threshold === null
        ? 'Search threshold: not reported'
        : `Search threshold: ${formatCount(project.search_threshold)} tokens`,
      'budget-threshold'
    )
  );
  box.appendChild(searchMode(project));
  return box;
}

function searchMode(project: IProject): HTMLElement {
  return el(
    'div',
    'jdp-Line',
    project.search_enabled
      ? 'Knowledge search: on (answers draw on search hits)'
      : 'Knowledge search: off (all knowledge is in context)',
    'search-mode'
  );
}

/** The attached Project: name, instructions, budget; or the state that stands for it. */
export function renderProject(
  project: Part<IProject> | null,
  handlers: Pick<IHandlers, 'signIn'>,
  service?: IService | null
): HTMLElement {
  const box = section('Attached Project', 'project');
  if (project === null) {
    box.appendChild(
      renderFailure({ error: Kind.noProject, message: '' }, handlers, service)
    );
    return box;
  }
  if (isFailure(project)) {
    box.appendChild(renderFailure(project, handlers, service));
    return box;
  }
  box.appendChild(el('div', 'jdp-Name', project.name, 'project-name'));
  const instructions = project.instructions?.trim() ?? '';
  box.appendChild(
    el(
      'div',
      instructions ? 'jdp-Instructions' : 'jdp-Instructions jdp-Muted',
      instructions || 'No instructions.',
      'project-instructions'
    )
  );
  box.appendChild(
    el(
      'div',
      'jdp-Line jdp-Muted',
      `${project.docs} docs · ${project.uploads} uploads`,
      'project-counts'
    )
  );
  box.appendChild(renderBudget(project));
  return box;
}

/** A doc's path as a link that opens it read-only in the main area. */
function docLink(
  path: string,
  handlers: Pick<IHandlers, 'openDoc'>
): HTMLElement {
  const open = el('button', 'jdp-Link', path, 'doc-open');
  open.type = 'button';
  open.title = `Open ${path} read-only in the main area`;
  open.addEventListener('click', () => handlers.openDoc(path));
  return open;
}

/** "Insert cell" for a doc, disabled with the reason when there is no notebook. */
function insertButton(
  path: string,
  handlers: Pick<IHandlers, 'insertCell'>,
  insert: IInsertTarget
): HTMLElement {
  return button('Insert cell', 'insert-cell', () => handlers.insertCell(path), {
    disabled: !insert.enabled,
    title: insert.enabled
      ? 'Add a `%project read` cell for it below the active cell'
      : insert.why
  });
}

/**
 * A section for a part that may be missing or a failure: the box, and the part's value
 * when there is one to render (otherwise the box already says why not).
 */
function partSection<T>(
  title: string,
  role: string,
  part: Part<T> | null,
  absent: string
): [HTMLElement, T | null] {
  const box = section(title, role);
  if (part === null) {
    box.appendChild(el('div', 'jdp-Muted', absent));
    return [box, null];
  }
  if (isFailure(part)) {
    box.appendChild(el('div', 'jdp-Error', part.message, `${role}-error`));
    return [box, null];
  }
  return [box, part];
}

function fileRow(
  item: IDoc & { kind?: string },
  role: string,
  handlers: Pick<IHandlers, 'openDoc' | 'insertCell'>,
  insert: IInsertTarget
): HTMLElement {
  const row = el('li', 'jdp-File', undefined, role);
  row.dataset.path = item.path;
  row.appendChild(docLink(item.path, handlers));
  const facts = [formatSize(item), formatDate(item.created_at)];
  if (item.kind) {
    facts.unshift(item.kind);
  }
  const meta = el('span', 'jdp-Meta jdp-Muted', facts.join(' · '), 'file-meta');
  meta.title = item.created_at ?? '';
  row.appendChild(meta);
  row.appendChild(insertButton(item.path, handlers, insert));
  return row;
}

/** Docs and uploads, each with size and date, an open link and an Insert cell button. */
export function renderFiles(
  files: Part<IFiles> | null,
  handlers: Pick<IHandlers, 'openDoc' | 'insertCell'>,
  insert: IInsertTarget
): HTMLElement {
  const [box, value] = partSection(
    'Docs and uploads',
    'files',
    files,
    'No Project files to show.'
  );
  if (value === null) {
    return box;
  }
  const groups: [string, string, IUpload[] | IFiles['docs']][] = [
    ['Docs', 'doc', value.docs],
    ['Uploads', 'upload', value.uploads]
  ];
  for (const [title, role, items] of groups) {
    box.appendChild(el('h4', 'jdp-SubTitle', `${title} (${items.length})`));
    const list = el('ul', 'jdp-Files', undefined, `${role}s`);
    if (items.length === 0) {
      list.appendChild(el('li', 'jdp-Muted', 'none'));
    }
    for (const item of items) {
      list.appendChild(fileRow(item, role, handlers, insert));
    }
    box.appendChild(list);
  }
  return box;
}

/** A search's answer: the hits, or the honest fallback when search is off. */
export function renderHits(
  search: Part<ISearch>,
  handlers: Pick<IHandlers, 'openDoc' | 'insertCell'>,
  insert: IInsertTarget
): HTMLElement {
  const box = el('div', 'jdp-Hits', undefined, 'hits');
  if (isFailure(search)) {
    box.appendChild(el('div', 'jdp-Error', search.message, 'search-error'));
    return box;
  }
  if (!search.rag) {
    box.appendChild(
      el(
        'div',
        'jdp-Muted',
        search.note ||
          'Knowledge search is off for this Project (all of it fits in context), so ' +
            'there are no hits: the docs are listed below.',
        'search-fallback'
      )
    );
  }
  if (search.rag && search.hits.length === 0) {
    box.appendChild(el('div', 'jdp-Muted', 'No hits.', 'no-hits'));
  }
  const list = el('ol', 'jdp-HitList');
  for (const hit of search.hits) {
    const item = el('li', 'jdp-Hit', undefined, 'hit');
    item.dataset.path = hit.name;
    item.appendChild(docLink(hit.name, handlers));
    item.appendChild(
      el('div', 'jdp-HitText', snippetText(hit.text), 'hit-text')
    );
    item.appendChild(insertButton(hit.name, handlers, insert));
    list.appendChild(item);
  }
  box.appendChild(list);
  return box;
}

// ---------------------------------------------------------------- Design panel

export function renderConsent(
  design: Part<IDesign> | null,
  handlers: Pick<IHandlers, 'setConsent' | 'signIn'>,
  service?: IService | null
): HTMLElement {
  const box = section('Consent', 'consent-section');
  if (design === null) {
    box.appendChild(
      el('div', 'jdp-Muted', 'Design is not available.', 'consent')
    );
    return box;
  }
  if (isFailure(design)) {
    box.appendChild(renderFailure(design, handlers, service));
    return box;
  }
  if (design.consent === null) {
    box.appendChild(
      el('div', 'jdp-Error', 'The consent could not be read.', 'consent')
    );
    return box;
  }
  const row = el('div', 'jdp-Row');
  row.appendChild(
    el(
      'span',
      design.consent ? 'jdp-Given' : 'jdp-NotGiven',
      design.consent ? 'consent: given' : 'consent: not given',
      'consent'
    )
  );
  row.appendChild(
    design.consent
      ? button('Revoke', 'consent-revoke', () => handlers.setConsent(false), {
          title:
            'Withdraw the consent; the service also clears every durable grant'
        })
      : button('Give', 'consent-give', () => handlers.setConsent(true), {
          primary: true,
          title: 'Let the kernels’ %design calls use the design canvas'
        })
  );
  box.appendChild(row);
  return box;
}

export function renderGrants(
  design: Part<IDesign> | null,
  handlers: Pick<IHandlers, 'revokeGrant'>
): HTMLElement {
  const box = section('Durable project grants', 'grants-section');
  const off = offByPolicy(design);
  if (off !== null) {
    box.appendChild(el('div', 'jdp-Muted', off.message, 'grants-off'));
    return box;
  }
  if (design === null || isFailure(design) || design.consent === null) {
    box.appendChild(
      el('div', 'jdp-Muted', 'Not available while the consent is unknown.')
    );
    return box;
  }
  const list = el('ul', 'jdp-Grants', undefined, 'grants');
  if (design.grants.length === 0) {
    list.appendChild(el('li', 'jdp-Muted', 'No durable grants.', 'no-grants'));
  }
  for (const grant of design.grants) {
    const name = grant.project_name || grant.project_id;
    const item = el('li', 'jdp-Grant', undefined, 'grant');
    item.dataset.projectId = grant.project_id;
    const text = el('span', 'jdp-GrantText');
    text.appendChild(el('span', 'jdp-Name', name, 'grant-name'));
    const since = el(
      'span',
      'jdp-Muted',
      ` since ${formatDate(grant.created_at)}`
    );
    since.title = `${grant.project_id} · ${grant.created_at}`;
    text.appendChild(since);
    item.appendChild(text);
    item.appendChild(
      button(
        'Revoke',
        'grant-revoke',
        () => handlers.revokeGrant(grant.project_id, name),
        {
          title: `Revoke the durable grant for ${name}; its next write asks again`
        }
      )
    );
    list.appendChild(item);
  }
  box.appendChild(list);
  box.appendChild(el('p', 'jdp-Note', PLAN_NOTE, 'plan-note'));
  return box;
}

/** Why an entry has no Restore button (its restore rule, as the journal declares it). */
export function whyNoRestore(entry: IJournalEntry): string {
  return entry.restore_kind === 'created'
    ? 'Nothing to restore: this write created the doc.'
    : 'Nothing to restore: no earlier content was kept for this entry.';
}

export function renderJournal(
  journal: Part<IJournal> | null,
  handlers: Pick<IHandlers, 'restore'>,
  projectsOff: IFailure | null = null
): HTMLElement {
  const [box, value] = partSection(
    'Project doc writes (%project write, delete, sync)',
    'journal',
    journal,
    'The journal is not available.'
  );
  if (value === null) {
    return box;
  }
  const list = el('ul', 'jdp-Journal', undefined, 'journal-entries');
  if (value.entries.length === 0) {
    list.appendChild(
      el(
        'li',
        'jdp-Muted',
        'No Project doc writes from this machine yet.',
        'no-entries'
      )
    );
  }
  for (const entry of value.entries) {
    const item = el('li', 'jdp-Entry', undefined, 'journal-entry');
    item.dataset.entryId = String(entry.id);
    item.dataset.path = entry.path;
    const head = el('div', 'jdp-EntryHead');
    head.appendChild(el('span', 'jdp-Action', entry.action, 'entry-action'));
    head.appendChild(el('span', 'jdp-Path', entry.path, 'entry-path'));
    item.appendChild(head);
    const meta = el(
      'div',
      'jdp-Meta jdp-Muted',
      `#${entry.id} · ${formatDate(entry.time)} · ${formatBytes(entry.bytes)}`,
      'entry-meta'
    );
    meta.title = entry.time;
    item.appendChild(meta);
    if (entry.approved !== undefined) {
      item.appendChild(
        el(
          'div',
          'jdp-Meta jdp-Muted',
          `approved: ${entry.approved}`,
          'entry-approved'
        )
      );
    }
    if (entry.restore !== null && projectsOff !== null) {
      item.appendChild(
        el('div', 'jdp-Note', projectsOff.message, 'no-restore')
      );
    } else if (entry.restore !== null) {
      item.appendChild(
        button('Restore', 'restore', () => handlers.restore(entry), {
          title: entry.restore
        })
      );
    } else {
      item.appendChild(
        el('div', 'jdp-Note', whyNoRestore(entry), 'no-restore')
      );
    }
    list.appendChild(item);
  }
  box.appendChild(list);
  return box;
}

/** How many changed paths one Design write entry lists before "… and N more". */
export const DESIGN_CHANGES_SHOWN = 12;

/** One Design write: what it did to which paths, in which project, under what. */
export function renderDesignWrite(entry: IDesignWrite): HTMLElement {
  const item = el('li', 'jdp-Entry', undefined, 'design-write');
  item.dataset.entryId = String(entry.id);
  item.dataset.operation = entry.operation;
  const head = el('div', 'jdp-EntryHead');
  head.appendChild(
    el('span', 'jdp-Action', entry.operation, 'write-operation')
  );
  const project = entry.project_name
    ? `${entry.project_name} (${entry.project_id})`
    : entry.project_id;
  head.appendChild(el('span', 'jdp-Name', project, 'write-project'));
  item.appendChild(head);
  const outcome =
    entry.outcome === 'unknown'
      ? ' · sent, never answered: it may or may not have happened'
      : '';
  const meta = el(
    'div',
    'jdp-Meta jdp-Muted',
    `#${entry.id} · ${formatDate(entry.time)}${outcome}`,
    'write-meta'
  );
  meta.title = entry.time;
  item.appendChild(meta);
  item.appendChild(
    el('div', 'jdp-Note', `Under ${entry.authority_detail}`, 'write-authority')
  );
  const changes = el('ul', 'jdp-Changes', undefined, 'write-changes');
  for (const change of entry.changes.slice(0, DESIGN_CHANGES_SHOWN)) {
    const parts = [change.change];
    if (change.path !== null) {
      parts.push(change.path);
    }
    if (change.bytes !== null) {
      parts.push(formatBytes(change.bytes));
    }
    if (change.detail !== null) {
      parts.push(
        change.path !== null ? `from ${change.detail}` : change.detail
      );
    }
    const row = el('li', 'jdp-Change', parts.join(' · '), 'write-change');
    if (change.path !== null) {
      row.dataset.path = change.path;
    }
    changes.appendChild(row);
  }
  const more = entry.changes.length - DESIGN_CHANGES_SHOWN;
  if (more > 0) {
    changes.appendChild(
      el('li', 'jdp-Muted', `… and ${more} more`, 'write-more')
    );
  }
  item.appendChild(changes);
  return item;
}

/** The Design writes this machine sent: deck pushes, write_files, deletes, copies. */
export function renderDesignJournal(
  journal: Part<IDesignJournal> | null
): HTMLElement {
  const [box, value] = partSection(
    'Design file writes (deck pushes, write_files, deletes)',
    'design-journal',
    journal,
    'The Design write journal is not available.'
  );
  if (value === null) {
    return box;
  }
  const list = el('ul', 'jdp-Journal', undefined, 'design-writes');
  if (value.entries.length === 0) {
    list.appendChild(
      el(
        'li',
        'jdp-Muted',
        'No Design writes from this machine yet.',
        'no-design-writes'
      )
    );
  }
  for (const entry of value.entries) {
    list.appendChild(renderDesignWrite(entry));
  }
  box.appendChild(list);
  return box;
}

/** The outcome of the last action in a panel. */
export function renderOutcome(
  outcome: { ok: boolean; text: string } | null
): HTMLElement {
  if (outcome === null) {
    return el('div', 'jdp-Outcome', undefined, 'outcome');
  }
  const box = el(
    'div',
    `jdp-Outcome ${outcome.ok ? 'jdp-mod-ok' : 'jdp-mod-error'}`,
    outcome.text,
    'outcome'
  );
  box.dataset.ok = String(outcome.ok);
  box.setAttribute('role', 'status');
  return box;
}
