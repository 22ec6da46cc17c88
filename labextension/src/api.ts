/**
 * The status the server handler reports, and the one request that fetches it.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

/** A part of the status that could not be read: a kind and a message, never a token. */
export interface IFailure {
  error: string;
  message: string;
}

export interface IService {
  base_url: string | null;
  web_base_url: string | null;
  reference: boolean;
}

export interface IProject {
  uuid: string;
  name: string;
  docs: number;
  uploads: number;
  knowledge_size: number;
  max_knowledge_size: number;
  search_enabled: boolean;
  search_threshold: number | null;
}

export interface IGrant {
  project_id: string;
  created_at: string;
}

export interface IDesign {
  /** null: the consent could not be read */
  consent: boolean | null;
  grants: IGrant[];
}

export interface IStatus {
  service: IService;
  project: IProject | IFailure | null;
  design: IDesign | IFailure | null;
  notice: string | null;
}

export function isFailure(value: unknown): value is IFailure {
  return typeof value === 'object' && value !== null && 'error' in value;
}

/** GET <base_url>/jupyter-design-projects/status; a failure is returned, not thrown. */
export async function fetchStatus(): Promise<IStatus | IFailure> {
  const settings = ServerConnection.makeSettings();
  const url = URLExt.join(settings.baseUrl, 'jupyter-design-projects', 'status');
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, {}, settings);
  } catch (reason) {
    return { error: 'network_error', message: String(reason) };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return {
      error: 'bad_answer',
      message: `The status handler answered HTTP ${response.status} without JSON.`
    };
  }
  if (!response.ok && !isFailure(body)) {
    return { error: 'http_error', message: `The status handler answered HTTP ${response.status}.` };
  }
  return body as IStatus | IFailure;
}
