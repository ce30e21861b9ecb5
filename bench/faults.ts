import { readFile, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { peekQueue } from '../infra/local/embedded/sqs.ts';
import type { LocalStack } from '../infra/local/state.ts';
import { dynamoUsageStore } from '../lib/adapters/dynamo/usage.ts';
import { cli, freePort, startService } from '../test/support/processes.ts';

/**
 * `npm run bench -- faults` (issue 29): an operator's bad day, through `npm start`. Each fault comes in
 * the middle of a burst of writes: DynamoDB Local killed, the S3 stand-in killed, the whole service
 * killed (SIGKILL) and started again on the same DATA_DIR. Per fault: requests tried, 5xx seen,
 * acknowledged writes lost (target 0), jobs stuck (0), unbilled completions (0), and the time until the
 * service answered again by itself (or after the restart, for the crash).
 */

const recoverWithinMs = 90_000;
/** The billing worker settles an owed usage over a minute old, and runs every minute: three minutes is its chance, twice over. */
const billedWithinMs = 180_000;
const inFlight = 6;

export interface FaultRow {
  fault: string;
  requests: number;
  errors5xx: number;
  failedToConnect: number;
  acknowledged: number;
  lost: number;
  stuck: number;
  unbilled: number;
  /** Milliseconds from the fault until a probe of the store's routes answered 200; undefined: not within the deadline. */
  recoveredMs: number | undefined;
}

export interface FaultReport {
  rows: FaultRow[];
  problems: string[];
  ok: boolean;
}

type Service = Awaited<ReturnType<typeof startService>>;

/** The pid listening on a TCP port, from /proc (Linux): the socket's inode, then the process holding it. */
async function pidListeningOn(port: number): Promise<number | undefined> {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[1]?.endsWith(`:${hex}`) && cols[3] === '0A') inodes.add(cols[9]!);
    }
  }
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds) {
      const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode && inodes.has(inode)) return Number(pid);
    }
  }
  return undefined;
}

export async function faultsBench(): Promise<FaultReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'maktaba-faults-'));
  const env = { DATA_DIR: dataDir, PORT: String(await freePort()), HOST: '127.0.0.1', OCR_WORKER: 'off' };
  let service: Service = await startService(env);
  const problems: string[] = [];
  const rows: FaultRow[] = [];
  const stack = async () => JSON.parse(await readFile(join(dataDir, 'local.json'), 'utf8')) as LocalStack;
  try {
    const seedFile = join(dataDir, 'seed.json');
    await writeFile(
      seedFile,
      JSON.stringify({
        users: [
          { key: 'ed', username: 'ed', role: 'editor' },
          { key: 'mo', username: 'mo', subscription: { tier: 'pro', status: 'active' } },
        ],
      }),
    );
    const users = JSON.parse((await cli(['seed', seedFile], env)).stdout).users as Record<string, { userId: string; token: string }>;
    const ed = users.ed!;
    const mo = users.mo!;
    const call = async (method: string, path: string, token: string, body?: unknown, form?: FormData): Promise<{ status: number; body: unknown }> => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      try {
        const res = await fetch(`${service.url}${path}`, { method, headers, body: form ?? (body === undefined ? undefined : JSON.stringify(body)), signal: AbortSignal.timeout(30_000) });
        const text = await res.text();
        return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
      } catch {
        return { status: 0, body: null };
      }
    };
    const upload = async () => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n')], { type: 'application/pdf' }), 'kitab.pdf');
      return call('POST', '/ocr', mo.token, undefined, form);
    };
    type Job = { jobId: string; fileId: string; bookTextId: string };
    const jobs = async (n: number): Promise<Job[]> => {
      const made: Job[] = [];
      for (let i = 0; i < n; i++) {
        const res = await upload();
        if (res.status !== 201) throw new Error(`making the bench's jobs: ${res.status}`);
        made.push(res.body as Job);
      }
      return made;
    };
    const statusOf = async (jobId: string) => ((await call('GET', `/ocr/status/${jobId}`, ed.token)).body as { job?: { status: string } })?.job?.status;
    const probe = (path: string) => async () => (await call('GET', path, mo.token)).status === 200;
    const until = async (ok: () => Promise<boolean>, from: number): Promise<number | undefined> => {
      while (Date.now() - from < recoverWithinMs) {
        if (await ok()) return Date.now() - from;
        await new Promise((r) => setTimeout(r, 250));
      }
      return undefined;
    };

    /** Sends the burst `inFlight` at a time; `fault` runs once `faultAfter` requests have answered. */
    const burst = async <T>(items: T[], send: (item: T) => Promise<{ status: number }>, faultAfter: number, fault: () => Promise<void>) => {
      const answers = new Map<T, number>();
      let answered = 0;
      let faulted: number | undefined;
      let next = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          for (let i = next++; i < items.length; i = next++) {
            const { status } = await send(items[i]!);
            answers.set(items[i]!, status);
            if (++answered === faultAfter) {
              faulted = Date.now();
              await fault();
            }
          }
        }),
      );
      return { answers, faulted: faulted ?? Date.now() };
    };
    const kill = async (port: number) => {
      const pid = await pidListeningOn(port);
      if (pid === undefined) throw new Error(`nothing listens on port ${port}`);
      process.kill(pid, 'SIGKILL');
    };
    const usage = async () => {
      const { endpoints, tableName } = await stack();
      const client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: endpoints.dynamodb, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
      return { store: dynamoUsageStore({ client, tableName }), close: () => client.destroy() };
    };
    const row = (fault: string, answers: Map<unknown, number>, extra: Omit<FaultRow, 'fault' | 'requests' | 'errors5xx' | 'failedToConnect' | 'acknowledged'>): FaultRow => {
      const statuses = [...answers.values()];
      return {
        fault,
        requests: statuses.length,
        errors5xx: statuses.filter((s) => s >= 500).length,
        failedToConnect: statuses.filter((s) => s === 0).length,
        acknowledged: statuses.filter((s) => s >= 200 && s < 300).length,
        ...extra,
      };
    };
    /** The service back for the next fault: as it is when it recovered, else started again. */
    const restartIfDown = async (recovered: number | undefined) => {
      if (recovered !== undefined) return;
      await service.stop();
      service = await startService(env);
    };

    // 1. DynamoDB killed amid a burst of completions: each acknowledged one completed and billed once.
    {
      const made = await jobs(60);
      const { port } = new URL((await stack()).endpoints.dynamodb);
      const { answers, faulted } = await burst(made, (j) => call('POST', '/ocr/result', ed.token, { jobId: j.jobId, fileId: j.fileId, userId: mo.userId, status: 'completed', pageCount: 1, extractedText: 'نص' }), 15, () => kill(Number(port)));
      const recoveredMs = await until(probe('/ocr/jobs'), faulted);
      await restartIfDown(recoveredMs);
      let lost = 0;
      const completed: string[] = [];
      for (const [job, status] of answers) {
        const now = await statusOf(job.jobId);
        if (status === 201 && now !== 'completed') lost++;
        if (now === 'completed') completed.push(job.jobId);
      }
      // A completion whose usage the fault kept from being recorded is billed by the billing worker's
      // next runs (every minute): counted once they had their chance.
      const { store, close } = await usage();
      const unbilledNow = async () => (await Promise.all(completed.map(async (jobId) => ((await store.forJob(jobId)) ? 0 : 1)))).reduce<number>((a, b) => a + b, 0);
      let unbilled = await unbilledNow();
      for (const end = Date.now() + billedWithinMs; unbilled > 0 && Date.now() < end; unbilled = await unbilledNow()) await new Promise((r) => setTimeout(r, 5_000));
      close();
      rows.push(row('DynamoDB Local killed amid 60 final results', answers, { lost, stuck: 0, unbilled, recoveredMs }));
    }

    // 2. The S3 stand-in killed amid a burst of long-text edits (the text goes to storage): each acknowledged edit whole.
    {
      const made = await jobs(40);
      const text = (j: Job) => `${'نص طويل '.repeat(300)}${j.jobId}`;
      const { port } = new URL((await stack()).endpoints.s3);
      const { answers, faulted } = await burst(made, (j) => call('PATCH', `/ocr/books/${j.bookTextId}`, mo.token, { extractedText: text(j), tags: [j.jobId.slice(0, 8)] }), 10, () => kill(Number(port)));
      const recoveredMs = await until(probe(`/ocr/books/${made[0]!.bookTextId}`), faulted);
      await restartIfDown(recoveredMs);
      let lost = 0;
      for (const [job, status] of answers) {
        const book = (await call('GET', `/ocr/books/${job.bookTextId}`, mo.token)).body as { book?: { extractedText: string; tags: string[] } };
        const whole = book.book?.extractedText === text(job) && book.book.tags.includes(job.jobId.slice(0, 8));
        if (status === 200 && !whole) lost++;
      }
      rows.push(row('S3 stand-in killed amid 40 long-text edits', answers, { lost, stuck: 0, unbilled: 0, recoveredMs }));
    }

    // 3. The whole service killed amid a burst of uploads, then started again: each accepted job queued.
    {
      const items = Array.from({ length: 30 }, (_, i) => i);
      const accepted: string[] = [];
      const { answers } = await burst(
        items,
        async () => {
          const res = await upload();
          if (res.status === 201) accepted.push((res.body as Job).jobId);
          return res;
        },
        10,
        // The server's own process (under tsx, npm start's child), as `kill -9` by an operator or the OOM killer.
        () => kill(Number(env.PORT)),
      ).catch(() => ({ answers: new Map<number, number>() }));
      const restarted = Date.now();
      const recoveredMs = await startService(env)
        .then((s) => ((service = s), Date.now() - restarted))
        .catch((error: Error) => {
          problems.push(`npm start after a SIGKILL: ${error.message.split('\n')[0]}`);
          return undefined;
        });
      let lost = 0;
      let stuck = 0;
      if (recoveredMs !== undefined) {
        const { endpoints, queueUrls } = await stack();
        const queued = new Set((await peekQueue(endpoints.sqs, queueUrls['ocr-jobs']!)).map((b) => (JSON.parse(b) as { jobId: string }).jobId));
        for (const jobId of accepted) {
          const now = await statusOf(jobId);
          if (now === undefined) lost++;
          else if (now === 'pending' && !queued.has(jobId)) stuck++;
        }
      }
      rows.push(row('npm start killed (SIGKILL) amid 30 uploads, then started again', answers, { lost, stuck, unbilled: 0, recoveredMs }));
    }
  } finally {
    await service.stop().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
  }
  for (const r of rows) {
    if (r.lost > 0) problems.push(`${r.fault}: ${r.lost} acknowledged writes lost`);
    if (r.stuck > 0) problems.push(`${r.fault}: ${r.stuck} jobs stuck`);
    if (r.unbilled > 0) problems.push(`${r.fault}: ${r.unbilled} completions unbilled`);
    if (r.recoveredMs === undefined) problems.push(`${r.fault}: not answering again within ${recoverWithinMs / 1000} s`);
  }
  return { rows, problems, ok: problems.length === 0 };
}

export function printFaults(report: FaultReport): void {
  console.log('| fault | requests | 5xx | no connection | acknowledged | lost | stuck | unbilled | answering again after |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of report.rows) {
    const recovered = r.recoveredMs === undefined ? `not within ${recoverWithinMs / 1000} s` : `${(r.recoveredMs / 1000).toFixed(1)} s`;
    console.log(`| ${r.fault} | ${r.requests} | ${r.errors5xx} | ${r.failedToConnect} | ${r.acknowledged} | ${r.lost} | ${r.stuck} | ${r.unbilled} | ${recovered} |`);
  }
  for (const problem of report.problems) console.log(`problem: ${problem}`);
}
