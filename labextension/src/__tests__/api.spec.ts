import { isFailure, Kind, PanelApi } from '../api';
import { answer, fakeSend, FILES, JOURNAL, status } from './fixtures';

describe('PanelApi', () => {
  it('asks each route with its method and answers its value', async () => {
    const { send, sent } = fakeSend({
      'GET status': answer(status()),
      'GET project/files': answer(FILES),
      'GET journal': answer(JOURNAL),
      'POST design/consent': answer({ consent: true, grants: [] }),
      'DELETE design/consent': answer({ consent: false, grants: [] }),
      'POST login': answer({ signed_in: true })
    });
    const api = new PanelApi(send);
    expect(await api.status()).toEqual(status());
    expect(await api.files()).toEqual(FILES);
    expect(await api.journal()).toEqual(JOURNAL);
    expect(await api.giveConsent()).toEqual({ consent: true, grants: [] });
    expect(await api.revokeConsent()).toEqual({ consent: false, grants: [] });
    expect(await api.login()).toEqual({ signed_in: true });
    expect(sent.map(s => `${s.method} ${s.path}`)).toEqual([
      'GET status',
      'GET project/files',
      'GET journal?n=50',
      'POST design/consent',
      'DELETE design/consent',
      'POST login'
    ]);
    expect(sent[3].body).toBe('{}');
    expect(sent[4].body).toBeUndefined();
  });

  it('encodes the query and the path parts', async () => {
    const { send, sent } = fakeSend({});
    const api = new PanelApi(send);
    await api.search('budget & scope?', 5);
    await api.doc('notes/a b#1.md');
    await api.revokeGrant('deck/1 2');
    await api.restore(12);
    expect(sent.map(s => s.path)).toEqual([
      'project/search?q=budget%20%26%20scope%3F&n=5',
      'project/doc?path=notes%2Fa%20b%231.md',
      'design/grants/deck%2F1%202',
      'journal/12/restore'
    ]);
  });

  it('keeps n of a search within 1–15', async () => {
    const { send, sent } = fakeSend({});
    const api = new PanelApi(send);
    await api.search('x', 0);
    await api.search('x', 1);
    await api.search('x', 15);
    await api.search('x', 16);
    expect(sent.map(s => s.path.split('&n=')[1])).toEqual([
      '1',
      '1',
      '15',
      '15'
    ]);
  });

  it('passes a failure object through, whatever the HTTP status', async () => {
    const failure = {
      error: Kind.notSignedIn,
      message: 'Sign in from the panel.'
    };
    const { send } = fakeSend({
      'GET status': answer(failure, 200),
      'GET project/files': answer({ error: 'not_found', message: 'gone' }, 404)
    });
    const api = new PanelApi(send);
    expect(await api.status()).toEqual(failure);
    expect(await api.files()).toEqual({ error: 'not_found', message: 'gone' });
  });

  it('turns an HTTP error without a failure object into bad_answer', async () => {
    const { send } = fakeSend({});
    const result = await new PanelApi(send).journal();
    expect(isFailure(result) && result.error).toBe(Kind.badAnswer);
    expect(isFailure(result) && result.message).toContain(
      'HTTP 404 to GET journal'
    );
  });

  it('turns an answer without JSON into bad_answer', async () => {
    const api = new PanelApi(() =>
      Promise.resolve({
        ok: true,
        status: 200,
        json: () => Promise.reject(new SyntaxError('Unexpected token <'))
      })
    );
    const result = await api.status();
    expect(isFailure(result) && result.error).toBe(Kind.badAnswer);
    expect(isFailure(result) && result.message).toContain('without JSON');
  });

  it('turns a request that never got an answer into network_error', async () => {
    const api = new PanelApi(() =>
      Promise.reject(new TypeError('Failed to fetch'))
    );
    const result = await api.status();
    expect(result).toEqual({
      error: Kind.network,
      message:
        'The Jupyter server did not answer (Failed to fetch): is it still running?'
    });
  });
});
