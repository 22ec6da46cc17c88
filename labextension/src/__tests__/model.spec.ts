import { IStatus, Kind, PanelApi } from '../api';
import { PanelModel, POLL_INTERVAL_MS, revisionKey, statusKey } from '../model';
import {
  answer,
  DESIGN_JOURNAL,
  fakeSend,
  FILES,
  JOURNAL,
  PROJECT,
  status
} from './fixtures';

/** A model over a fake API whose status answer the test changes. */
function setup(visible = { now: true }) {
  let current: IStatus | { error: string; message: string } = status();
  const { send, sent } = fakeSend({
    'GET status': () => answer(current),
    'GET project/files': answer(FILES),
    'GET journal': answer(JOURNAL),
    'GET design/journal': answer(DESIGN_JOURNAL),
    'POST design/consent': answer({ consent: true, grants: [] }),
    'DELETE design/grants/deck-1': answer({ consent: true, grants: [] }),
    'POST journal/7/restore': answer({
      message: 'Restored guides/onboarding.md.'
    }),
    'POST login': () => {
      tabsAtLogin.push(tabs.opened);
      return answer(loginAnswer);
    },
    'POST login/finish': () => answer(finishAnswer, finishStatus)
  });
  let finishAnswer: unknown = { signed_in: true };
  let finishStatus = 200;
  let loginAnswer: unknown = { signed_in: true };
  const opened: string[] = [];
  const tabs = { opened: 0, closed: 0 };
  const tabsAtLogin: number[] = [];
  const model = new PanelModel(new PanelApi(send), {
    isVisible: () => visible.now,
    openTab: () => {
      tabs.opened += 1;
      return {
        go: url => opened.push(url),
        close: () => (tabs.closed += 1)
      };
    }
  });
  let changes = 0;
  model.changed.connect(() => (changes += 1));
  const count = (route: string) =>
    sent.filter(s => `${s.method} ${s.path.split('?')[0]}` === route).length;
  return {
    model,
    sent,
    opened,
    tabs,
    tabsAtLogin,
    count,
    changes: () => changes,
    setStatus: (next: typeof current) => (current = next),
    setLogin: (next: unknown) => (loginAnswer = next),
    setFinish: (next: unknown, code = 200) => {
      finishAnswer = next;
      finishStatus = code;
    }
  };
}

function setHidden(hidden: boolean): void {
  Object.defineProperty(document, 'visibilityState', {
    configurable: true,
    get: () => (hidden ? 'hidden' : 'visible')
  });
  document.dispatchEvent(new Event('visibilitychange'));
}

afterEach(() => {
  setHidden(false);
  jest.useRealTimers();
});

describe('statusKey', () => {
  it('is the version, or the failure, so either change counts', () => {
    expect(statusKey(null)).toBe('');
    expect(statusKey(status({ version: 'abc' }))).toBe('version:abc');
    expect(statusKey({ error: 'x', message: 'y' })).toBe('failure:x:y');
  });

  it('revisionKey follows the project revision, or the failure in its place', () => {
    const detached = status({
      project: { error: 'no_attached_project', message: '' }
    });
    expect(revisionKey(status())).toBe('revision:r1');
    expect(revisionKey(detached)).toBe('project-failure:no_attached_project');
  });
});

describe('PanelModel.refresh', () => {
  it('fetches status, files and journal, then emits once', async () => {
    const t = setup();
    await t.model.refresh();
    expect(t.model.status).toEqual(status());
    expect(t.model.files).toEqual(FILES);
    expect(t.model.journal).toEqual(JOURNAL);
    expect(t.changes()).toBe(1);
    t.model.dispose();
  });

  it('asks only for the status while the version stays the same', async () => {
    const t = setup();
    await t.model.refresh();
    await t.model.refresh();
    await t.model.refresh();
    expect(t.count('GET status')).toBe(3);
    expect(t.count('GET project/files')).toBe(1);
    expect(t.count('GET journal')).toBe(1);
    expect(t.changes()).toBe(1);
    t.model.dispose();
  });

  it('fetches files and journal again when the project revision changes', async () => {
    const t = setup();
    await t.model.refresh();
    t.setStatus(
      status({
        version: 'v2',
        project: { ...PROJECT, docs: 3, revision: 'r2' }
      })
    );
    await t.model.refresh();
    expect(t.count('GET project/files')).toBe(2);
    expect(t.count('GET journal')).toBe(2);
    expect(t.changes()).toBe(2);
    t.model.dispose();
  });

  it('fetches the Design write journal again only when its revision changes', async () => {
    const t = setup();
    await t.model.refresh();
    expect(t.model.designJournal).toEqual(DESIGN_JOURNAL);
    const design = { consent: true, grants: [], journal_revision: '1-1-0' };
    t.setStatus(status({ version: 'v2', design }));
    await t.model.refresh();
    t.setStatus(
      status({ version: 'v3', design: { ...design, consent: false } })
    );
    await t.model.refresh();
    expect(t.count('GET design/journal')).toBe(2);
    expect(t.count('GET journal')).toBe(1);
    expect(t.changes()).toBe(3);
    t.model.dispose();
  });

  it('re-renders on a new version alone without fetching files or journal', async () => {
    const t = setup();
    await t.model.refresh();
    t.setStatus(
      status({ version: 'v2', design: { consent: false, grants: [] } })
    );
    await t.model.refresh();
    expect(t.count('GET project/files')).toBe(1);
    expect(t.count('GET journal')).toBe(1);
    expect(t.changes()).toBe(2);
    expect(t.model.files).toEqual(FILES);
    t.model.dispose();
  });

  it('does not ask for files when no Project is attached', async () => {
    const t = setup();
    t.setStatus(
      status({ project: { error: Kind.noProject, message: 'Set it.' } })
    );
    await t.model.refresh();
    expect(t.count('GET project/files')).toBe(0);
    expect(t.model.files).toBeNull();
    t.model.dispose();
  });

  it('keeps a failed status as the state and emits once per failure', async () => {
    const t = setup();
    t.setStatus({ error: Kind.unreachable, message: 'refused' });
    await t.model.refresh();
    await t.model.refresh();
    expect(t.model.status).toEqual({
      error: Kind.unreachable,
      message: 'refused'
    });
    expect(t.count('GET journal')).toBe(0);
    expect(t.changes()).toBe(1);
    t.setStatus(status());
    await t.model.refresh();
    expect(t.changes()).toBe(2);
    t.model.dispose();
  });

  it('shares one request between overlapping calls, plus one more round', async () => {
    const t = setup();
    await Promise.all([
      t.model.refresh(),
      t.model.refresh(),
      t.model.refresh()
    ]);
    expect(t.count('GET status')).toBe(2);
    t.model.dispose();
  });
});

describe('PanelModel actions', () => {
  it('shows the new design part at once after Give', async () => {
    const t = setup();
    t.setStatus(status({ design: { consent: false, grants: [] } }));
    await t.model.refresh();
    const outcome = await t.model.setConsent(true);
    expect(outcome).toEqual({ ok: true, text: 'Consent given.' });
    expect(
      t.sent.some(s => s.method === 'POST' && s.path === 'design/consent')
    ).toBe(true);
    t.model.dispose();
  });

  it('revokes a grant by id and names the project in the outcome', async () => {
    const t = setup();
    await t.model.refresh();
    const outcome = await t.model.revokeGrant(
      'deck-1',
      'Quarterly Review Deck'
    );
    expect(outcome.text).toBe(
      'The durable grant for Quarterly Review Deck is revoked.'
    );
    t.model.dispose();
  });

  it('fetches the journal again after a restore even when the version did not change', async () => {
    const t = setup();
    await t.model.refresh();
    const outcome = await t.model.restore(7);
    expect(outcome).toEqual({
      ok: true,
      text: 'Restored guides/onboarding.md.'
    });
    expect(t.count('GET journal')).toBe(2);
    t.model.dispose();
  });

  it('reports a failed action with the service’s message', async () => {
    const t = setup();
    await t.model.refresh();
    const outcome = await t.model.restore(8);
    expect(outcome.ok).toBe(false);
    t.model.dispose();
  });

  it('signs in by itself on the reference service, or opens the given URL', async () => {
    const t = setup();
    expect(await t.model.signIn()).toEqual({ ok: true, text: 'Signed in.' });
    expect(t.opened).toEqual([]);
    t.setLogin({ url: 'https://example.test/oauth/authorize?x=1' });
    const outcome = await t.model.signIn();
    expect(t.opened).toEqual(['https://example.test/oauth/authorize?x=1']);
    expect(outcome.text).toContain('new tab');
    t.model.dispose();
  });

  it('opens the tab at the click, before the server answers, and closes it if unused', async () => {
    const t = setup();
    await t.model.signIn(); // signed in by itself: the tab is not needed
    expect(t.tabsAtLogin).toEqual([1]);
    expect(t.tabs).toEqual({ opened: 1, closed: 1 });
    t.setLogin({
      error: 'unavailable',
      message: 'The service did not answer.'
    });
    expect((await t.model.signIn()).ok).toBe(false);
    expect(t.tabs).toEqual({ opened: 2, closed: 2 });
    t.setLogin({ url: 'https://example.test/oauth/authorize?x=2' });
    await t.model.signIn();
    expect(t.tabsAtLogin).toEqual([1, 2, 3]);
    expect(t.tabs).toEqual({ opened: 3, closed: 2 });
    expect(t.opened).toEqual(['https://example.test/oauth/authorize?x=2']);
    t.model.dispose();
  });
});

describe('PanelModel sign-in with a pasted code', () => {
  it('asks for paste mode, opens the page and waits for the code', async () => {
    const t = setup();
    t.setLogin({
      url: 'https://hub.test/user/a/jupyter-design-projects/oauth/authorize?s=1',
      mode: 'paste'
    });
    const outcome = await t.model.signIn('paste');
    const begun = t.sent.find(s => s.path === 'login');
    expect(JSON.parse(String(begun?.body))).toEqual({ mode: 'paste' });
    expect(t.opened).toEqual([
      'https://hub.test/user/a/jupyter-design-projects/oauth/authorize?s=1'
    ]);
    expect(outcome.text).toContain('paste the code');
    expect(t.model.pasting).toBe(true);
    t.model.dispose();
  });

  it('keeps waiting after a refused code and stops once signed in', async () => {
    const t = setup();
    t.setLogin({ url: 'https://hub.test/x', mode: 'paste' });
    await t.model.signIn('paste');
    expect(await t.model.finishSignIn('  ')).toEqual({
      ok: false,
      text: 'Paste the code the sign-in page shows first.'
    });
    expect(t.count('POST login/finish')).toBe(0);
    t.setFinish(
      { error: 'invalid_argument', message: 'Paste the whole code.' },
      400
    );
    const refused = await t.model.finishSignIn('nohash');
    expect(refused).toEqual({ ok: false, text: 'Paste the whole code.' });
    expect(t.model.pasting).toBe(true);
    t.setFinish({ signed_in: true });
    expect(await t.model.finishSignIn(' abc#state ')).toEqual({
      ok: true,
      text: 'Signed in.'
    });
    const last = t.sent.filter(s => s.path === 'login/finish').pop();
    expect(JSON.parse(String(last?.body))).toEqual({ code: 'abc#state' });
    expect(t.model.pasting).toBe(false);
    t.model.dispose();
  });
});

describe('PanelModel poll', () => {
  it('asks every 3 s while a panel is visible, and not while none is', async () => {
    jest.useFakeTimers();
    const visible = { now: true };
    const t = setup(visible);
    await t.model.start();
    await jest.advanceTimersByTimeAsync(0);
    const first = t.count('GET status');
    expect(first).toBeGreaterThanOrEqual(1);
    await jest.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(t.count('GET status')).toBe(first + 1);
    await jest.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(t.count('GET status')).toBe(first + 2);
    visible.now = false;
    await jest.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 3);
    expect(t.count('GET status')).toBe(first + 2);
    visible.now = true;
    await jest.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(t.count('GET status')).toBe(first + 3);
    t.model.dispose();
  });

  it('does not ask while the page is hidden', async () => {
    jest.useFakeTimers();
    const t = setup();
    await t.model.start();
    await jest.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    const before = t.count('GET status');
    setHidden(true);
    await jest.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 3);
    expect(t.count('GET status')).toBe(before);
    setHidden(false);
    await jest.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(t.count('GET status')).toBe(before + 1);
    t.model.dispose();
  });

  it('sees a new version within one interval, with no call from the panel', async () => {
    jest.useFakeTimers();
    const t = setup();
    await t.model.start();
    await jest.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    const before = t.changes();
    t.setStatus(status({ version: 'v2' }));
    await jest.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(t.changes()).toBe(before + 1);
    t.model.dispose();
  });
});
