/**
 * Answers shaped as docs/panel-api.md gives them, and a fake request layer that records
 * each request and answers from a table.
 */
import {
  IAnswer,
  IDesignJournal,
  IFiles,
  IJournal,
  IProject,
  IStatus,
  Send
} from '../api';

export const PROJECT: IProject = {
  uuid: '00000000-0000-4000-8000-000000000001',
  name: 'Team Handbook',
  instructions: 'Answer from the handbook.\nCite the doc.',
  docs: 2,
  uploads: 1,
  knowledge_size: 12345,
  max_knowledge_size: 1800000,
  search_enabled: false,
  search_threshold: 900000,
  revision: 'r1'
};

export function status(overrides: Partial<IStatus> = {}): IStatus {
  return {
    version: 'v1',
    service: {
      base_url: 'http://127.0.0.1:41234',
      reference: true,
      state: 'ready'
    },
    project: PROJECT,
    design: {
      consent: true,
      grants: [
        {
          project_id: 'deck-1',
          project_name: 'Quarterly Review Deck',
          created_at: '2026-12-03T08:00:00Z'
        }
      ]
    },
    notice: null,
    ...overrides
  };
}

export const FILES: IFiles = {
  docs: [
    {
      uuid: 'd1',
      path: 'guides/onboarding.md',
      bytes: null,
      tokens: 1234,
      created_at: '2026-12-01T09:30:00Z'
    },
    {
      uuid: 'd2',
      path: "notes/it's $HOME.md",
      bytes: null,
      tokens: 3,
      created_at: '2026-12-02T10:00:00Z'
    }
  ],
  uploads: [
    {
      uuid: 'u1',
      path: 'slides.pdf',
      kind: 'pdf',
      bytes: 3 * 1024 * 1024,
      created_at: '2026-11-30T23:59:00Z'
    }
  ]
};

export const JOURNAL: IJournal = {
  entries: [
    {
      id: 7,
      time: '2026-12-03T08:05:00Z',
      action: 'replace',
      project_uuid: PROJECT.uuid,
      path: 'guides/onboarding.md',
      bytes: 2048,
      approved: 'on its card',
      restore_kind: 'write_back',
      restore:
        'Write back the 1.9 KiB that entry #7 replaced in guides/onboarding.md.'
    },
    {
      id: 6,
      time: '2026-12-03T08:04:00Z',
      action: 'create',
      project_uuid: PROJECT.uuid,
      path: 'notes/new.md',
      bytes: 5,
      restore_kind: 'created',
      restore: null
    }
  ]
};

export const DESIGN_JOURNAL: IDesignJournal = {
  entries: [
    {
      id: 3,
      time: '2026-12-03T08:06:00Z',
      operation: 'write_files',
      project_id: 'deck-1',
      project_name: 'Quarterly Review Deck',
      authority: 'plan',
      authority_detail:
        'an approved plan for 2 write(s) and 0 delete(s), valid until 08:21:00 UTC',
      outcome: 'done',
      changes: [
        {
          path: 'slides/01-intro.html',
          change: 'created',
          bytes: 2048,
          detail: null
        },
        {
          path: 'slides/01-intro/figure.png',
          change: 'replaced',
          bytes: 4096,
          detail: null
        }
      ]
    }
  ]
};

export function answer(body: unknown, status = 200): IAnswer {
  return {
    ok: status >= 200 && status < 300,
    status,
    json: () => Promise.resolve(body)
  };
}

export interface ISent {
  path: string;
  method: string;
  body?: string;
}

/** A fake `Send`: `routes` maps "METHOD path-without-query" to an answer (or a function). */
export function fakeSend(
  routes: Record<string, IAnswer | ((sent: ISent) => IAnswer)>
): { send: Send; sent: ISent[] } {
  const sent: ISent[] = [];
  const send: Send = (path, init) => {
    const request = { path, method: init.method, body: init.body };
    sent.push(request);
    const key = `${init.method} ${path.split('?')[0]}`;
    const route = routes[key];
    if (route === undefined) {
      return Promise.resolve(answer({ message: 'Not Found' }, 404));
    }
    return Promise.resolve(
      typeof route === 'function' ? route(request) : route
    );
  };
  return { send, sent };
}

/** The elements under `root` with `data-jdp="<role>"`. */
export function q(root: HTMLElement, role: string): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(`[data-jdp="${role}"]`));
}
