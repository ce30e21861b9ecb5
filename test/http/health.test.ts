import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../functions/_shared/contract/document.ts';
import { startApi } from '../support/api.ts';

/** GET /health over the real handler and the test run's stores, every answer held to the API document (startApi). */
let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api?.close());

describe('GET /health', () => {
  it('reports each store ok, to a caller with no token', async () => {
    const res = await api.call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', stores: { table: 'ok', uploads: 'ok', audio: 'ok', ocrQueue: 'ok', audioQueue: 'ok' } });
  });

  it('is marked in the document as outside docs/SPEC.md’s API', () => {
    const operation = (openApiDocument() as { paths: Record<string, Record<string, { tags: string[]; security: unknown[] }>> }).paths['/health']!.get!;
    expect(operation.tags).toEqual(['Operations']);
    expect(operation.security).toEqual([]);
  });
});
