import { IJournalEntry, Kind } from '../api';
import {
  ATTACH_HOWTO,
  renderBudget,
  renderConsent,
  renderDesignJournal,
  DESIGN_CHANGES_SHOWN,
  renderFailure,
  renderFiles,
  renderGrants,
  renderHits,
  renderJournal,
  renderPasteCode,
  renderProject,
  renderService
} from '../render';
import { DESIGN_JOURNAL, FILES, JOURNAL, PROJECT, q } from './fixtures';

function text(root: HTMLElement, role: string): string {
  const found = q(root, role);
  expect(found).toHaveLength(1);
  return found[0].textContent ?? '';
}

const noop = {
  openDoc: jest.fn(),
  insertCell: jest.fn(),
  signIn: jest.fn(),
  setConsent: jest.fn(),
  revokeGrant: jest.fn(),
  restore: jest.fn()
};
const canInsert = { enabled: true, why: '' };

describe('renderService', () => {
  it('names the embedded service in words, not by its loopback address', () => {
    const line = renderService({
      base_url: 'http://127.0.0.1:41234',
      label: 'the embedded reference service, on this Jupyter server',
      reference: true,
      state: 'ready'
    });
    expect(text(line, 'base-url')).toBe(
      'the embedded reference service, on this Jupyter server'
    );
    expect(line.textContent).not.toContain('127.0.0.1');
  });
});

describe('renderProject', () => {
  it('shows name, instructions, counts and the budget', () => {
    const box = renderProject(PROJECT, noop);
    expect(text(box, 'project-name')).toBe('Team Handbook');
    expect(text(box, 'project-instructions')).toBe(
      'Answer from the handbook.\nCite the doc.'
    );
    expect(text(box, 'project-counts')).toBe('2 docs · 1 uploads');
    expect(text(box, 'budget-used')).toBe(
      '12,345 of 1,800,000 tokens used (0.7%)'
    );
    expect(text(box, 'budget-threshold')).toBe(
      'Search threshold: 900,000 tokens'
    );
    expect(text(box, 'search-mode')).toBe(
      'Knowledge search: off (all knowledge is in context)'
    );
  });

  it('never parses service text as HTML', () => {
    const box = renderProject(
      { ...PROJECT, name: '<img src=x onerror=alert(1)>' },
      noop
    );
    expect(box.querySelector('img')).toBeNull();
    expect(text(box, 'project-name')).toBe('<img src=x onerror=alert(1)>');
  });

  it('says how to attach a Project when none is attached', () => {
    const box = renderProject({ error: Kind.noProject, message: 'x' }, noop);
    expect(q(box, 'state')[0].dataset.kind).toBe(Kind.noProject);
    expect(text(box, 'state-detail')).toBe(ATTACH_HOWTO);
    expect(ATTACH_HOWTO).toContain('CLAUDE_PROJECT_UUID');
    expect(q(box, 'project-name')).toHaveLength(0);
  });
});

describe('renderBudget', () => {
  it('marks the threshold and fills the used share', () => {
    const box = renderBudget({ ...PROJECT, knowledge_size: 450000 });
    const bar = q(box, 'knowledge-meter')[0];
    expect(bar.getAttribute('aria-valuenow')).toBe('450000');
    expect((bar.firstChild as HTMLElement).style.width).toBe('25.00%');
    expect(q(box, 'threshold-mark')[0].style.left).toBe('50.00%');
  });

  it('colours the used share once it reaches the threshold, not before', () => {
    const below = renderBudget({ ...PROJECT, knowledge_size: 899999 });
    const at = renderBudget({
      ...PROJECT,
      knowledge_size: 900000,
      search_enabled: true
    });
    expect(below.querySelector('.jdp-mod-over')).toBeNull();
    expect(at.querySelector('.jdp-mod-over')).not.toBeNull();
    expect(text(at, 'search-mode')).toBe(
      'Knowledge search: on (answers draw on search hits)'
    );
  });

  it('says so, with no bar, when the service gives no sizes', () => {
    const box = renderBudget({ ...PROJECT, knowledge_size: null });
    expect(q(box, 'knowledge-meter')).toHaveLength(0);
    expect(text(box, 'budget-used')).toBe(
      'The service did not report the knowledge size.'
    );
    expect(q(box, 'search-mode')).toHaveLength(1);
  });

  it('leaves out the mark when the service gives no threshold', () => {
    const box = renderBudget({ ...PROJECT, search_threshold: null });
    expect(q(box, 'threshold-mark')).toHaveLength(0);
    expect(text(box, 'budget-threshold')).toBe(
      'Search threshold: not reported'
    );
  });
});

describe('renderFailure', () => {
  it('gives not_signed_in a Sign in button that calls signIn', () => {
    const signIn = jest.fn();
    const box = renderFailure(
      { error: Kind.notSignedIn, message: 'No credential.' },
      { signIn }
    );
    expect(text(box, 'state-title')).toBe('Not signed in');
    q(box, 'sign-in')[0].click();
    expect(signIn).toHaveBeenCalledWith('redirect');
    q(box, 'sign-in-paste')[0].click();
    expect(signIn).toHaveBeenLastCalledWith('paste');
    expect(box.textContent).not.toContain('login_begin');
  });

  it('gives the paste box an input whose Finish sends what was typed', () => {
    const finishSignIn = jest.fn();
    const form = renderPasteCode({ finishSignIn });
    const input = q(form, 'paste-code')[0] as HTMLInputElement;
    input.value = 'code#state';
    q(form, 'finish-sign-in')[0].click();
    expect(finishSignIn).toHaveBeenCalledWith('code#state');
    form.dispatchEvent(new Event('submit'));
    expect(finishSignIn).toHaveBeenCalledTimes(2);
    expect(form.querySelector('label')?.htmlFor).toBe(input.id);
  });

  it('names the unreachable service’s URL and asks if it runs', () => {
    const box = renderFailure(
      { error: Kind.unreachable, message: 'Connection refused.' },
      noop,
      { base_url: 'http://127.0.0.1:9', reference: false, state: 'unreachable' }
    );
    expect(text(box, 'state-title')).toBe(
      'No answer from http://127.0.0.1:9: is the service running?'
    );
    expect(q(box, 'sign-in')).toHaveLength(0);
  });

  it('names a failed start and an answer that is not the panel API’s', () => {
    const failed = renderFailure(
      { error: Kind.startFailed, message: 'See its log.' },
      noop
    );
    expect(text(failed, 'state-title')).toBe(
      'The reference service did not start'
    );
    const bad = renderFailure(
      { error: Kind.badAnswer, message: 'HTTP 404' },
      noop
    );
    expect(text(bad, 'state-title')).toBe(
      'The Jupyter server did not answer as the panel API does'
    );
  });

  it('shows a service error with its kind and message', () => {
    const box = renderFailure(
      { error: 'rate_limited', message: 'Try again in 30 s.' },
      noop
    );
    expect(text(box, 'state-title')).toBe(
      'The service answered with an error (rate_limited)'
    );
    expect(text(box, 'state-detail')).toBe('Try again in 30 s.');
  });
});

describe('renderFiles', () => {
  it('lists docs and uploads with size and date, and wires open and insert', () => {
    const openDoc = jest.fn();
    const insertCell = jest.fn();
    const box = renderFiles(FILES, { openDoc, insertCell }, canInsert);
    const docs = q(box, 'doc');
    expect(docs.map(d => d.dataset.path)).toEqual([
      'guides/onboarding.md',
      "notes/it's $HOME.md"
    ]);
    expect(text(docs[0], 'file-meta')).toBe('~1,234 tokens · 2026-12-01 09:30');
    const upload = q(box, 'upload')[0];
    expect(text(upload, 'file-meta')).toBe('pdf · 3.0 MiB · 2026-11-30 23:59');
    q(docs[1], 'doc-open')[0].click();
    q(docs[1], 'insert-cell')[0].click();
    expect(openDoc).toHaveBeenCalledWith("notes/it's $HOME.md");
    expect(insertCell).toHaveBeenCalledWith("notes/it's $HOME.md");
  });

  it('disables Insert cell with the reason when there is no notebook', () => {
    const box = renderFiles(FILES, noop, {
      enabled: false,
      why: 'Open a notebook first.'
    });
    const insert = q(box, 'insert-cell')[0] as HTMLButtonElement;
    expect(insert.disabled).toBe(true);
    expect(insert.title).toBe('Open a notebook first.');
  });
});

describe('renderHits', () => {
  it('lists hits with their text', () => {
    const box = renderHits(
      {
        rag: true,
        hits: [
          { name: 'guides/onboarding.md', doc_uuid: 'd1', text: 'Day one…' }
        ]
      },
      noop,
      canInsert
    );
    expect(q(box, 'hit')).toHaveLength(1);
    expect(text(box, 'hit-text')).toBe('Day one…');
    expect(q(box, 'search-fallback')).toHaveLength(0);
  });

  it('shows a snippet as plain text cut at a word, never Markdown or HTML', () => {
    const chunk =
      '# On-call\n\nThe **pager** rotates weekly. <script>alert(1)</script> ' +
      'word '.repeat(80);
    const box = renderHits(
      {
        rag: true,
        hits: [{ name: 'on-call.md', doc_uuid: 'd2', text: chunk }]
      },
      noop,
      canInsert
    );
    const shown = text(box, 'hit-text');
    expect(
      shown.startsWith('On-call. The pager rotates weekly. <script>')
    ).toBe(true);
    expect(shown.endsWith('word…')).toBe(true);
    expect(q(box, 'hit-text')[0].querySelector('script')).toBeNull();
  });

  it('says honestly when search is off and there are no hits', () => {
    const box = renderHits({ rag: false, hits: [] }, noop, canInsert);
    expect(text(box, 'search-fallback')).toContain('Knowledge search is off');
    const noted = renderHits(
      { rag: false, hits: [], note: 'Search is off.' },
      noop,
      canInsert
    );
    expect(text(noted, 'search-fallback')).toBe('Search is off.');
    expect(q(box, 'hit')).toHaveLength(0);
  });
});

describe('renderConsent and renderGrants', () => {
  it('offers Give when consent is not given, Revoke when it is', () => {
    const setConsent = jest.fn();
    const off = renderConsent(
      { consent: false, grants: [] },
      { setConsent, signIn: jest.fn() }
    );
    expect(text(off, 'consent')).toBe('consent: not given');
    expect(q(off, 'consent-revoke')).toHaveLength(0);
    q(off, 'consent-give')[0].click();
    const on = renderConsent(
      { consent: true, grants: [] },
      { setConsent, signIn: jest.fn() }
    );
    expect(q(on, 'consent-give')).toHaveLength(0);
    q(on, 'consent-revoke')[0].click();
    expect(setConsent.mock.calls).toEqual([[true], [false]]);
  });

  it('lists grants by project name, each with a Revoke', () => {
    const revokeGrant = jest.fn();
    const box = renderGrants(
      {
        consent: true,
        grants: [
          {
            project_id: 'deck-1',
            project_name: 'Quarterly Review Deck',
            created_at: '2026-12-03T08:00:00Z'
          },
          {
            project_id: 'deck-2',
            project_name: null,
            created_at: '2026-12-03T09:00:00Z'
          }
        ]
      },
      { revokeGrant }
    );
    const names = q(box, 'grant-name').map(n => n.textContent);
    expect(names).toEqual(['Quarterly Review Deck', 'deck-2']);
    q(box, 'grant-revoke')[0].click();
    expect(revokeGrant).toHaveBeenCalledWith('deck-1', 'Quarterly Review Deck');
  });
});

describe('renderJournal', () => {
  it('shows Restore only where restore is given, titled with what it does', () => {
    const restore = jest.fn();
    const box = renderJournal(JOURNAL, { restore });
    const [replaced, created] = q(box, 'journal-entry');
    const button = q(replaced, 'restore')[0] as HTMLButtonElement;
    expect(button.title).toBe(JOURNAL.entries[0].restore);
    expect(q(created, 'restore')).toHaveLength(0);
    expect(text(created, 'no-restore')).toBe(
      'Nothing to restore: this write created the doc.'
    );
    button.click();
    expect(restore).toHaveBeenCalledWith(JOURNAL.entries[0]);
  });

  it('says why a non-create entry cannot be restored', () => {
    const entry: IJournalEntry = {
      ...JOURNAL.entries[0],
      action: 'delete_unknown',
      restore_kind: 'nothing_kept',
      restore: null
    };
    const box = renderJournal({ entries: [entry] }, { restore: jest.fn() });
    expect(text(box, 'no-restore')).toBe(
      'Nothing to restore: no earlier content was kept for this entry.'
    );
  });

  it('reads the restore rule the journal declares, not the action', () => {
    const entry: IJournalEntry = {
      ...JOURNAL.entries[0],
      action: 'create_unknown',
      restore_kind: 'nothing_kept',
      restore: null
    };
    const box = renderJournal({ entries: [entry] }, { restore: jest.fn() });
    expect(text(box, 'no-restore')).toBe(
      'Nothing to restore: no earlier content was kept for this entry.'
    );
  });
});

describe('renderJournal approval', () => {
  it('says who approved each entry that recorded it, and nothing for one that did not', () => {
    const box = renderJournal(JOURNAL, { restore: jest.fn() });
    const [replaced, created] = q(box, 'journal-entry');
    expect(text(replaced, 'entry-approved')).toBe('approved: on its card');
    expect(q(created, 'entry-approved')).toHaveLength(0);
  });
});

describe('renderDesignJournal', () => {
  it('names the section by what it holds and each write by project, authority and paths', () => {
    const box = renderDesignJournal(DESIGN_JOURNAL);
    expect(
      box.querySelector('h3, h2, summary')?.textContent ?? box.textContent
    ).toContain('Design file writes');
    expect(text(box, 'write-project')).toBe('Quarterly Review Deck (deck-1)');
    expect(text(box, 'write-authority')).toBe(
      'Under an approved plan for 2 write(s) and 0 delete(s), valid until 08:21:00 UTC'
    );
    const changes = q(box, 'write-change').map(c => c.textContent);
    expect(changes[0]).toMatch(/^created · slides\/01-intro.html · /);
    expect(changes[1]).toMatch(/^replaced · slides\/01-intro\/figure.png · /);
  });

  it('says a write that was never answered may or may not have happened', () => {
    const entry = { ...DESIGN_JOURNAL.entries[0], outcome: 'unknown' };
    const box = renderDesignJournal({ entries: [entry] });
    expect(text(box, 'write-meta')).toContain('may or may not have happened');
  });

  it('lists at most DESIGN_CHANGES_SHOWN paths of one write, then how many more', () => {
    const change = DESIGN_JOURNAL.entries[0].changes[0];
    const many = Array.from({ length: DESIGN_CHANGES_SHOWN + 3 }, () => change);
    const box = renderDesignJournal({
      entries: [{ ...DESIGN_JOURNAL.entries[0], changes: many }]
    });
    expect(q(box, 'write-change')).toHaveLength(DESIGN_CHANGES_SHOWN);
    expect(text(box, 'write-more')).toBe('… and 3 more');
  });

  it('says when there are no Design writes yet', () => {
    const box = renderDesignJournal({ entries: [] });
    expect(text(box, 'no-design-writes')).toBe(
      'No Design writes from this machine yet.'
    );
  });
});
