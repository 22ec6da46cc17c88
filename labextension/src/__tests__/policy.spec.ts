/**
 * A tool a policy gate closes (off_by_policy): the panels say so, name the setting, offer
 * none of its buttons, and stop polling once both tools are off.
 */
import { IFailure, Kind, PanelApi } from '../api';
import { allOffByPolicy, PanelModel, POLL_INTERVAL_MS } from '../model';
import {
  renderConsent,
  renderGrants,
  renderJournal,
  renderProject
} from '../render';
import { answer, fakeSend, JOURNAL, q, status } from './fixtures';

const DESIGN_OFF: IFailure = {
  error: Kind.offByPolicy,
  setting: 'allow_design_sync',
  message:
    'Design is off by policy: allow_design_sync is off (the environment variable ' +
    'JDP_ALLOW_DESIGN_SYNC, or c.DesignProjects.allow_design_sync in the Jupyter ' +
    "server's config). Change it and restart JupyterLab to use it here."
};
const PROJECTS_OFF: IFailure = {
  error: Kind.offByPolicy,
  setting: 'essential_traffic_only',
  message: 'Projects is off by policy: essential_traffic_only is on (…).'
};

const noop = {
  openDoc: jest.fn(),
  insertCell: jest.fn(),
  signIn: jest.fn(),
  setConsent: jest.fn(),
  revokeGrant: jest.fn(),
  restore: jest.fn()
};

afterEach(() => {
  jest.useRealTimers();
});

describe('off by policy in the panels', () => {
  it('keeps the setting the server named', async () => {
    const { send } = fakeSend({
      'POST design/consent': answer(DESIGN_OFF, 403)
    });
    const design = await new PanelApi(send).giveConsent();
    expect(design).toEqual(DESIGN_OFF);
  });

  it('says "off by policy" with the setting, and offers no consent button', () => {
    const box = renderConsent(DESIGN_OFF, noop);
    const [state] = q(box, 'state');
    expect(state.dataset.kind).toBe('off_by_policy');
    expect(state.dataset.setting).toBe('allow_design_sync');
    expect(q(box, 'state-title')[0].textContent).toBe(
      'Off by policy (allow_design_sync)'
    );
    expect(q(box, 'state-detail')[0].textContent).toContain(
      'JDP_ALLOW_DESIGN_SYNC'
    );
    expect(q(box, 'consent-give')).toHaveLength(0);
    expect(q(box, 'consent-revoke')).toHaveLength(0);
    expect(box.querySelectorAll('button')).toHaveLength(0);
  });

  it('shows the reason in place of the grants and their Revoke buttons', () => {
    const box = renderGrants(DESIGN_OFF, noop);
    expect(q(box, 'grants-off')[0].textContent).toBe(DESIGN_OFF.message);
    expect(q(box, 'grant-revoke')).toHaveLength(0);
    expect(box.querySelectorAll('button')).toHaveLength(0);
  });

  it('shows the grants and their buttons when Design is open', () => {
    const box = renderGrants(status().design, noop);
    expect(q(box, 'grant-revoke')).toHaveLength(1);
    expect(q(box, 'grants-off')).toHaveLength(0);
  });

  it('says the Project is off by policy, with no sign-in button', () => {
    const box = renderProject(PROJECTS_OFF, noop);
    expect(q(box, 'state-title')[0].textContent).toBe(
      'Off by policy (essential_traffic_only)'
    );
    expect(box.querySelectorAll('button')).toHaveLength(0);
  });

  it('replaces Restore by the reason while Projects is off', () => {
    const off = renderJournal(JOURNAL, noop, PROJECTS_OFF);
    expect(q(off, 'restore')).toHaveLength(0);
    expect(q(off, 'no-restore').map(n => n.textContent)).toContain(
      PROJECTS_OFF.message
    );
    const open = renderJournal(JOURNAL, noop, null);
    expect(q(open, 'restore')).toHaveLength(1);
  });
});

describe('the poll under a policy', () => {
  function setup(project: unknown, design: unknown) {
    const { send, sent } = fakeSend({
      'GET status': () =>
        answer(status({ project, design } as Parameters<typeof status>[0])),
      'GET project/files': answer({ docs: [], uploads: [] }),
      'GET journal': answer(JOURNAL)
    });
    const model = new PanelModel(new PanelApi(send), { isVisible: () => true });
    const count = (route: string) =>
      sent.filter(s => `${s.method} ${s.path.split('?')[0]}` === route).length;
    return { model, count };
  }

  it('stops once both tools are off by policy', async () => {
    jest.useFakeTimers();
    const t = setup(PROJECTS_OFF, DESIGN_OFF);
    await t.model.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(allOffByPolicy(t.model.status)).toBe(true);
    const asked = t.count('GET status');
    expect(asked).toBe(1);
    await jest.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 4);
    expect(t.count('GET status')).toBe(asked);
    expect(t.count('GET project/files')).toBe(0);
    expect(t.model.polling).toBe(false);
    t.model.dispose();
  });

  it('keeps polling while one tool is still open', async () => {
    jest.useFakeTimers();
    const t = setup(status().project, DESIGN_OFF);
    await t.model.start();
    await jest.advanceTimersByTimeAsync(0);
    const asked = t.count('GET status');
    await jest.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 2);
    expect(t.count('GET status')).toBe(asked + 2);
    expect(t.model.polling).toBe(true);
    t.model.dispose();
  });
});
