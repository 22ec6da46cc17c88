import { MessageLoop } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import { IStatus, Kind, PanelApi } from '../api';
import { PanelModel } from '../model';
import {
  DesignPanel,
  DocView,
  IPanelHost,
  ProjectPanel,
  SEARCH_PLACEHOLDER,
  statusFailure
} from '../panels';
import { answer, fakeSend, FILES, JOURNAL, q, status } from './fixtures';

function setup(initial: unknown = status()) {
  let current = initial;
  const { send, sent } = fakeSend({
    'GET status': () => answer(current),
    'GET project/files': answer(FILES),
    'GET journal': answer(JOURNAL),
    'GET project/search': answer({
      rag: true,
      hits: [{ name: 'guides/onboarding.md', doc_uuid: 'd1', text: 'Day one…' }]
    }),
    'GET project/doc': answer({
      path: 'guides/onboarding.md',
      content: '# Onboarding',
      truncated: true
    }),
    'POST journal/7/restore': answer({
      message: 'Restored guides/onboarding.md.'
    })
  });
  const api = new PanelApi(send);
  const model = new PanelModel(api, { isVisible: () => true });
  const host: IPanelHost & { confirmAnswer: boolean } = {
    confirmAnswer: true,
    openDoc: jest.fn(),
    insertCell: jest.fn(() => true),
    insertTarget: () => ({ enabled: true, why: '' }),
    confirm: jest.fn(() => Promise.resolve(host.confirmAnswer))
  };
  const project = new ProjectPanel(model, host);
  const design = new DesignPanel(model, host);
  Widget.attach(project, document.body);
  Widget.attach(design, document.body);
  const flush = () => {
    MessageLoop.sendMessage(project, Widget.Msg.UpdateRequest);
    MessageLoop.sendMessage(design, Widget.Msg.UpdateRequest);
  };
  const dispose = () => {
    project.dispose();
    design.dispose();
    model.dispose();
  };
  return {
    api,
    model,
    host,
    project,
    design,
    sent,
    flush,
    dispose,
    setStatus: (next: unknown) => (current = next)
  };
}

describe('statusFailure', () => {
  it('stands for the whole status when the service is starting or unreachable', () => {
    const starting = status({
      service: { base_url: null, reference: true, state: 'starting' },
      project: { error: Kind.starting, message: 'Starting…' }
    });
    expect(statusFailure(starting)).toEqual({
      error: Kind.starting,
      message: 'Starting…'
    });
    expect(statusFailure(status())).toBeNull();
    expect(statusFailure({ error: 'bad_answer', message: 'm' })).toEqual({
      error: 'bad_answer',
      message: 'm'
    });
  });
});

describe('ProjectPanel', () => {
  it('shows loading, then the project and its files', async () => {
    const t = setup();
    t.flush();
    expect(q(t.project.node, 'loading')).toHaveLength(1);
    await t.model.refresh();
    t.flush();
    expect(t.project.node.dataset.state).toBe('ready');
    expect(q(t.project.node, 'project-name')[0].textContent).toBe(
      'Team Handbook'
    );
    expect(q(t.project.node, 'doc')).toHaveLength(2);
    expect(q(t.project.node, 'reference')).toHaveLength(1);
    t.dispose();
  });

  it('gives the search box a short placeholder and a full label', async () => {
    const t = setup();
    await t.model.refresh();
    t.flush();
    const input = q(t.project.node, 'search-input')[0] as HTMLInputElement;
    expect(input.placeholder).toBe(SEARCH_PLACEHOLDER);
    expect(SEARCH_PLACEHOLDER.length).toBeLessThanOrEqual(12);
    expect(input.getAttribute('aria-label')).toBe(
      'Search the Project’s knowledge'
    );
    t.dispose();
  });

  it('keeps the search box and its hits through a re-render', async () => {
    const t = setup();
    await t.model.refresh();
    t.flush();
    const input = q(t.project.node, 'search-input')[0] as HTMLInputElement;
    input.value = 'onboarding';
    const form = q(t.project.node, 'search-form')[0] as HTMLFormElement;
    form.dispatchEvent(new Event('submit', { cancelable: true }));
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(q(t.project.node, 'hit')).toHaveLength(1);
    expect(t.sent.some(s => s.path === 'project/search?q=onboarding&n=5')).toBe(
      true
    );
    t.setStatus(status({ version: 'v2' }));
    await t.model.refresh();
    t.flush();
    expect(q(t.project.node, 'search-input')[0]).toBe(input);
    expect(input.value).toBe('onboarding');
    expect(q(t.project.node, 'hit')).toHaveLength(1);
    t.dispose();
  });

  it('inserts a cell through the host and says so', async () => {
    const t = setup();
    await t.model.refresh();
    t.flush();
    q(q(t.project.node, 'doc')[0], 'insert-cell')[0].click();
    t.flush();
    expect(t.host.insertCell).toHaveBeenCalledWith('guides/onboarding.md');
    expect(q(t.project.node, 'outcome')[0].textContent).toBe(
      'Inserted a cell that reads guides/onboarding.md.'
    );
    t.dispose();
  });

  it('shows one banner, and no parts, while the service is unreachable', async () => {
    const unreachable: IStatus = status({
      service: {
        base_url: 'http://127.0.0.1:9',
        reference: false,
        state: 'unreachable'
      },
      project: { error: Kind.unreachable, message: 'Connection refused.' },
      design: { error: Kind.unreachable, message: 'Connection refused.' }
    });
    const t = setup(unreachable);
    await t.model.refresh();
    t.flush();
    for (const panel of [t.project, t.design]) {
      expect(panel.node.dataset.state).toBe(Kind.unreachable);
      expect(q(panel.node, 'state')).toHaveLength(1);
      expect(q(panel.node, 'state-title')[0].textContent).toBe(
        'No answer from http://127.0.0.1:9: is the service running?'
      );
    }
    expect(q(t.project.node, 'project-name')).toHaveLength(0);
    expect(q(t.design.node, 'consent')).toHaveLength(0);
    t.dispose();
  });

  it('shows the service’s notice with the project', async () => {
    const t = setup(
      status({ notice: 'Your sign-in now includes the Projects scopes.' })
    );
    await t.model.refresh();
    t.flush();
    expect(q(t.project.node, 'notice')[0].textContent).toBe(
      'Your sign-in now includes the Projects scopes.'
    );
    t.dispose();
  });

  it('hides the search box when no Project is attached', async () => {
    const t = setup(
      status({ project: { error: Kind.noProject, message: 'x' } })
    );
    await t.model.refresh();
    t.flush();
    expect(q(t.project.node, 'search-section')[0].hidden).toBe(true);
    expect(q(t.project.node, 'state')[0].dataset.kind).toBe(Kind.noProject);
    t.dispose();
  });
});

describe('DesignPanel', () => {
  it('restores an entry only after the user confirms', async () => {
    const t = setup();
    await t.model.refresh();
    t.flush();
    t.host.confirmAnswer = false;
    q(t.design.node, 'restore')[0].click();
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(t.sent.some(s => s.path === 'journal/7/restore')).toBe(false);
    t.host.confirmAnswer = true;
    q(t.design.node, 'restore')[0].click();
    for (
      let i = 0;
      i < 10 && !t.sent.some(s => s.path === 'journal/7/restore');
      i++
    ) {
      await new Promise(resolve => setTimeout(resolve, 0));
    }
    await t.model.refresh();
    t.flush();
    expect(t.host.confirm).toHaveBeenCalledWith(
      'Restore journal entry #7?',
      JOURNAL.entries[0].restore,
      'Restore'
    );
    expect(q(t.design.node, 'outcome')[0].textContent).toBe(
      'Restored guides/onboarding.md.'
    );
    t.dispose();
  });
});

describe('DocView', () => {
  it('shows the text read-only and says when it was cut', async () => {
    const t = setup();
    const view = new DocView(t.api, 'guides/onboarding.md');
    await view.load();
    expect(q(view.node, 'doc-content')[0].textContent).toBe('# Onboarding');
    expect(q(view.node, 'doc-content')[0].tagName).toBe('PRE');
    expect(q(view.node, 'read-only')).toHaveLength(1);
    expect(q(view.node, 'doc-truncated')).toHaveLength(1);
    expect(
      view.node.querySelector('textarea, input, [contenteditable]')
    ).toBeNull();
    view.dispose();
    t.dispose();
  });
});
