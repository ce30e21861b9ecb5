import { request } from 'node:http';

export interface RawResponse {
  status: number;
  contentType: string;
  /** The body as text (binary answers are not read as text by callers). */
  text: string;
}

/**
 * One request with the path sent exactly as given (fetch would resolve `..` and re-encode), so the
 * server sees what a hostile client can send. Headers must be Latin-1, as HTTP/1.1 allows.
 */
export function rawRequest(
  baseUrl: string,
  options: { method: string; path: string; headers?: Record<string, string>; body?: Buffer },
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: options.method,
        path: options.path,
        headers: { ...options.headers, ...(options.body ? { 'content-length': String(options.body.length) } : {}) },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
