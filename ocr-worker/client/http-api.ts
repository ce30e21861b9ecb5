import { promisify } from 'node:util';
import { brotliCompress, constants } from 'node:zlib';
import { ApiRefused, ApiUnavailable, type FinalResult, type JobStatus, type PageResult, type ServiceApi } from './service-api.ts';

/**
 * Brotli 9: a 2,000-page Arabic book's final result (about 15 MB of JSON) in about 3.4 MB, where gzip
 * leaves 4.5 MB, past what a request may carry; a few seconds of the worker's CPU, once a job.
 */
const brotli = (body: Buffer) =>
  promisify(brotliCompress)(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } });

/** Bodies above this go Brotli-compressed (`Content-Encoding: br`): a big book's final result is many MB of JSON. */
export const compressAboveBytes = 1024 * 1024;
/**
 * The most a request body may be on the wire, compressed: Lambda's 6 MB invocation payload less the
 * base64 growth (4/3) of a binary body and the event's other fields. About 15 MB of Arabic JSON.
 */
export const maxRequestBytes = 4 * 1024 * 1024;

export interface HttpApiOptions {
  /** The API's base URL (`ApiUrl`; locally http://127.0.0.1:3000). */
  baseUrl: string;
  /** An editor's or admin's bearer token, or a function that gets one (a cached Secrets Manager read). */
  token: string | (() => Promise<string>);
  /** Per attempt; the final result of a big book needs a while. */
  timeoutMs?: number;
  /** Attempts per call when the service does not answer (5xx, 429, timeout, network). */
  attempts?: number;
  /**
   * First pause between attempts; each next one is four times longer, with jitter. Not a lib/retry.ts
   * policy: the waits (about 0.5, 2, 8 s) ride out a service restart, and job/finish.ts sizes its lease on them.
   */
  backoffMs?: number;
  fetch?: typeof fetch;
  pause?: (ms: number) => Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The service's API over HTTP: bearer token, JSON bodies (Brotli when large), bounded retries. */
export function httpServiceApi(options: HttpApiOptions): ServiceApi {
  const { timeoutMs = 30_000, attempts = 4, backoffMs = 500, pause = sleep } = options;
  const fetchImpl = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  const token = typeof options.token === 'string' ? () => Promise.resolve(options.token as string) : options.token;

  async function call(what: string, method: string, path: string, body: unknown, expected: number[]): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${await token()}`, accept: 'application/json' };
    let payload: Buffer | undefined;
    if (body !== undefined) {
      payload = Buffer.from(JSON.stringify(body));
      headers['content-type'] = 'application/json';
      if (payload.length > compressAboveBytes) {
        payload = await brotli(payload);
        headers['content-encoding'] = 'br';
      }
      if (payload.length > maxRequestBytes) {
        throw new ApiRefused(`The ${what} is ${megabytes(payload.length)} MB compressed, over the ${megabytes(maxRequestBytes)} MB a request may carry`, 413);
      }
    }
    let last = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await pause(backoffMs * 4 ** (attempt - 2) * (0.5 + Math.random()));
      let res: Response;
      try {
        res = await fetchImpl(`${base}${path}`, { method, headers, body: payload, signal: AbortSignal.timeout(timeoutMs) });
      } catch (error) {
        last = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : 'the service could not be reached';
        continue;
      }
      if (expected.includes(res.status)) return res;
      const reason = await reasonOf(res);
      if (res.status < 500 && res.status !== 429) throw new ApiRefused(`The service refused the ${what} (${res.status}${reason})`, res.status);
      last = `${res.status}${reason}`;
    }
    throw new ApiUnavailable(`The service did not take the ${what} after ${attempts} attempts (${last})`);
  }

  return {
    async postPage(result: PageResult) {
      await call(`result of page ${result.pageNumber}`, 'POST', '/ocr/result/page', result, [200]);
    },
    async postResult(result: FinalResult) {
      const res = await call('final result', 'POST', '/ocr/result', result, [201]);
      const answer = (await res.json()) as { usageInfo?: unknown };
      return { usageInfo: answer.usageInfo ?? null };
    },
    async jobStatus(jobId: string) {
      const res = await call('status request', 'GET', `/ocr/status/${encodeURIComponent(jobId)}`, undefined, [200, 404]);
      if (res.status === 404) return undefined;
      const answer = (await res.json()) as { job?: { status?: JobStatus } };
      return answer.job?.status;
    },
  };
}

const megabytes = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);

/** The service's own message, when its body has one (docs/SPEC.md 7: `{message}` or plain text). */
async function reasonOf(res: Response): Promise<string> {
  const text = (await res.text().catch(() => '')).slice(0, 300);
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: unknown };
    const message = typeof body.message === 'string' ? body.message : typeof body.error === 'string' ? body.error : '';
    return message ? `: ${message}` : '';
  } catch {
    return text.trim() ? `: ${text.trim()}` : '';
  }
}
