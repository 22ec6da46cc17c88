/**
 * The "Design & Projects" side panel: renders one status report with DOM text nodes only
 * (service data is never parsed as HTML) and refetches it on Refresh.
 */
import { Widget } from '@lumino/widgets';

import { fetchStatus, IDesign, IFailure, IProject, IStatus, isFailure } from './api';

const PLAN_NOTE =
  'Plan tokens (15-minute path grants) live inside each kernel process and are not shown here.';

function el<K extends keyof HTMLElementTagNameMap>(
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

function section(title: string, role: string): HTMLElement {
  const box = el('section', 'jdp-Section', undefined, role);
  box.appendChild(el('h3', 'jdp-SectionTitle', title));
  return box;
}

function failure(box: HTMLElement, error: string, message: string): void {
  const line = el('div', 'jdp-Error', `${error}: ${message}`, 'error');
  box.appendChild(line);
}

export class StatusPanel extends Widget {
  constructor() {
    super();
    this.addClass('jdp-StatusPanel');
    const header = el('div', 'jdp-Header');
    header.appendChild(el('h2', 'jdp-Title', 'Design & Projects'));
    this._refresh = el('button', 'jp-Button jp-mod-styled jdp-Refresh', 'Refresh', 'refresh');
    this._refresh.addEventListener('click', () => void this.refresh());
    header.appendChild(this._refresh);
    this._body = el('div', 'jdp-Body', 'Loading…', 'body');
    this.node.appendChild(header);
    this.node.appendChild(this._body);
  }

  /** Fetch the status and render it; concurrent refreshes collapse into one. */
  refresh(): Promise<void> {
    if (!this._pending) {
      this._refresh.disabled = true;
      this.node.dataset.state = 'loading';
      this._pending = fetchStatus()
        .then(status => this._render(status))
        .finally(() => {
          this._pending = null;
          this._refresh.disabled = false;
          this.node.dataset.state = 'ready';
        });
    }
    return this._pending;
  }

  protected onAfterShow(): void {
    void this.refresh();
  }

  private _render(status: IStatus | IFailure): void {
    const body = el('div', 'jdp-Body', undefined, 'body');
    if (isFailure(status)) {
      const box = section('Service', 'service');
      failure(box, status.error, status.message);
      body.appendChild(box);
    } else {
      const report = status;
      body.appendChild(this._service(report));
      body.appendChild(this._project(report.project));
      body.appendChild(this._design(report.design));
      if (report.notice) {
        body.appendChild(el('p', 'jdp-Notice', report.notice, 'notice'));
      }
    }
    body.appendChild(
      el('p', 'jdp-Updated', `Updated ${new Date().toLocaleTimeString()}`, 'updated')
    );
    this.node.replaceChild(body, this._body);
    this._body = body;
  }

  private _service(report: IStatus): HTMLElement {
    const box = section('Service', 'service');
    const url = report.service.base_url ?? 'not configured: kernels start their own';
    box.appendChild(el('div', 'jdp-Url', url, 'base-url'));
    if (report.service.reference) {
      box.appendChild(el('div', 'jdp-Badge', 'offline reference service', 'reference'));
    }
    return box;
  }

  private _project(project: IStatus['project']): HTMLElement {
    const box = section('Attached Project', 'project');
    if (project === null) {
      box.appendChild(el('div', 'jdp-Muted', 'No Project is attached (CLAUDE_PROJECT_UUID).'));
      return box;
    }
    if (isFailure(project)) {
      failure(box, project.error, project.message);
      return box;
    }
    const p = project as IProject;
    box.appendChild(el('div', 'jdp-Name', p.name, 'project-name'));
    const counts = `${p.docs} docs · ${p.uploads} uploads`;
    box.appendChild(el('div', 'jdp-Line', counts, 'project-docs'));
    const share = p.max_knowledge_size > 0 ? p.knowledge_size / p.max_knowledge_size : 0;
    const meter = el('meter', 'jdp-Meter', undefined, 'knowledge-meter');
    meter.min = 0;
    meter.max = p.max_knowledge_size;
    meter.high = p.max_knowledge_size * 0.9;
    meter.value = p.knowledge_size;
    box.appendChild(meter);
    const budget =
      `${p.knowledge_size.toLocaleString()} / ${p.max_knowledge_size.toLocaleString()} ` +
      `tokens (${(share * 100).toFixed(1)}%)`;
    box.appendChild(el('div', 'jdp-Line', budget, 'knowledge-budget'));
    const threshold =
      p.search_threshold === null
        ? ''
        : ` (threshold ${p.search_threshold.toLocaleString()} tokens)`;
    const search = `knowledge search: ${p.search_enabled ? 'enabled' : 'not enabled'}${threshold}`;
    box.appendChild(el('div', 'jdp-Line', search, 'search'));
    return box;
  }

  private _design(design: IStatus['design']): HTMLElement {
    const box = section('Design authorizations', 'design');
    if (design === null) {
      box.appendChild(el('div', 'jdp-Muted', 'Design is not available.'));
      return box;
    }
    if (isFailure(design)) {
      failure(box, design.error, design.message);
    } else {
      const d = design as IDesign;
      const consent =
        d.consent === null ? 'consent: could not be read' : `consent: ${d.consent ? 'given' : 'not given'}`;
      box.appendChild(el('div', 'jdp-Line', consent, 'consent'));
      box.appendChild(el('h4', 'jdp-SubTitle', 'Durable project grants'));
      const list = el('ul', 'jdp-Grants', undefined, 'grants');
      if (d.grants.length === 0) {
        list.appendChild(el('li', 'jdp-Muted', 'none'));
      }
      for (const grant of d.grants) {
        const item = el('li', 'jdp-Grant', undefined, 'grant');
        item.appendChild(el('code', 'jdp-ProjectId', grant.project_id));
        item.appendChild(el('span', 'jdp-Muted', ` since ${grant.created_at}`));
        list.appendChild(item);
      }
      box.appendChild(list);
    }
    box.appendChild(el('p', 'jdp-Note', PLAN_NOTE, 'plan-note'));
    return box;
  }

  private _body: HTMLElement;
  private _refresh: HTMLButtonElement;
  private _pending: Promise<void> | null = null;
}
