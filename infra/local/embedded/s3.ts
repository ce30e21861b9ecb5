import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { explainOutput, keepOutput } from './child-output.ts';
import { supervise, type StoreProcess, type Supervision } from './supervise.ts';

interface S3Process extends StoreProcess {
  port: number;
}

/**
 * s3rver keeping objects under `<dataDir>/s3`, on 127.0.0.1 only. It accepts only access key `S3RVER`,
 * secret `S3RVER`, and (patched below) refuses unsigned requests as S3 does.
 * Every object it stores or removes is announced to `onChange`: what the bucket notifications forward
 * (notifications.ts).
 */
export interface EmbeddedS3 {
  endpoint: string;
  port: number;
  /** The child's pid now (a new one after a restart). */
  pid(): number;
  onChange(listener: (change: ObjectChange) => void): void;
  stop(): Promise<void>;
}

/** An object stored or removed: the S3 event's name (`ObjectCreated:Put`, `ObjectRemoved:Delete`, ...) and what it names. */
export interface ObjectChange {
  eventName: string;
  eventTime: string;
  bucket: string;
  key: string;
  size?: number;
  eTag?: string;
}

const s3rverModule = createRequire(import.meta.url).resolve('s3rver');
const readyTimeoutMs = 15_000;
const stopTimeoutMs = 5_000;

// Runs in a child Node process: s3rver signs ListObjectsV2 continuation tokens with DES, which
// OpenSSL 3 (Node 17+) refuses unless Node starts with --openssl-legacy-provider. The child prints
// its port once listening, then one line per event record, and exits when its stdin closes, so it
// dies with its parent.
const childScript = `
const [modulePath, optionsJson] = process.argv.slice(1);
const { directory, port, buckets } = JSON.parse(optionsJson);
const S3rver = require(modulePath);
const announce = (eventName, bucket, key, size, eTag) =>
  process.stdout.write(JSON.stringify({ eventName, eventTime: new Date().toISOString(), bucket, key, size, eTag }) + '\\n');
// s3rver removes a key's directories once they are empty after a delete; a put into the same
// directory at that moment writes into a directory that is gone, and the unhandled stream error ends
// the process (seen when page edits race). Empty directories list as nothing, so they stay.
// Every removal is announced here: s3rver announces a DELETE of one key but not a DeleteObjects.
const Store = require(require('path').join(require('path').dirname(modulePath), 'stores', 'filesystem.js'));
const unlinkQuietly = (file) => require('fs/promises').unlink(file).catch((e) => { if (e.code !== 'ENOENT') throw e; });
Store.prototype.deleteObject = async function (bucket, key) {
  await Promise.all(['object', 'object.md5', 'metadata.json'].map((kind) => unlinkQuietly(this.getResourcePath(bucket, key, kind))));
  announce('ObjectRemoved:Delete', bucket, key);
};
// S3 copies only while the source still has the ETag of x-amz-copy-source-if-match (the presigned
// upload's claim relies on it); s3rver ignores the header. Here the check and the copy are two steps,
// so the copy's own bytes are hashed too and a copy of anything else is undone. The other copy
// conditions are refused rather than ignored.
const lib = require('path').dirname(modulePath);
const objects = require(require('path').join(lib, 'controllers', 'object.js'));
const S3Error = require(require('path').join(lib, 'models', 'error.js'));
const copy = objects.putObjectCopy;
const conditionFailed = () => new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', { Condition: 'x-amz-copy-source-If-Match' });
const md5Of = (file) => new Promise((resolve, reject) => {
  const hash = require('crypto').createHash('md5');
  require('fs').createReadStream(file).on('error', reject).on('data', (chunk) => hash.update(chunk)).on('end', () => resolve(JSON.stringify(hash.digest('hex'))));
});
const unquoted = (eTag) => eTag.trim().replace(/^"|"$/g, '');
objects.putObjectCopy = async function (ctx) {
  for (const header of ['x-amz-copy-source-if-none-match', 'x-amz-copy-source-if-modified-since', 'x-amz-copy-source-if-unmodified-since']) {
    if (header in ctx.headers) throw new S3Error('NotImplemented', 'A header you provided implies functionality that is not implemented', { Header: header });
  }
  const expected = ctx.headers['x-amz-copy-source-if-match'];
  if (expected === undefined) return copy(ctx);
  const source = decodeURI(ctx.headers['x-amz-copy-source']).replace(/^\\//, '');
  const [srcBucket, ...srcKey] = source.split('/');
  const accepts = (eTag) => expected.split(',').some((tag) => tag.trim() === '*' || unquoted(tag) === unquoted(eTag));
  if (await ctx.store.existsObject(srcBucket, srcKey.join('/'))) {
    if (!accepts((await ctx.store.getMetadata(srcBucket, srcKey.join('/'))).etag)) throw conditionFailed();
  }
  await copy(ctx);
  // A multipart upload's ETag is no digest of its bytes: its copied tag is all there is to compare.
  const file = ctx.store.getResourcePath(ctx.params.bucket, ctx.params.key, 'object');
  const copiedTag = (await ctx.store.getMetadata(ctx.params.bucket, ctx.params.key)).etag;
  const copied = /-\\d+"?$/.test(copiedTag) ? copiedTag : await md5Of(file);
  if (!accepts(copied)) {
    await ctx.store.deleteObject(ctx.params.bucket, ctx.params.key);
    ctx.body = undefined;
    throw conditionFailed();
  }
  // s3rver copies the object and its digest file one after the other: the digest is the copy's own.
  if (copied !== copiedTag) {
    await require('fs/promises').writeFile(file + '.md5', JSON.parse(copied));
    ctx.body.CopyObjectResult.ETag = copied;
  }
};
process.stdin.on('end', () => process.exit(0)).resume();
const server = new S3rver({ address: '127.0.0.1', port, directory, silent: true, configureBuckets: buckets.map((name) => ({ name })) });
// S3 refuses a request without a signature (unless a bucket grants anonymous access: ours grant
// none); s3rver serves it, so anyone reaching the port could list and read every object. Let through
// only CORS preflights, which S3 answers unsigned, and a browser's form POST to a bucket, whose
// signature is a field of the form (s3rver checks no POST policy). Right after the request log.
const signed = (ctx) => 'authorization' in ctx.headers || 'X-Amz-Algorithm' in ctx.query || 'Signature' in ctx.query;
const formUpload = (ctx) => ctx.method === 'POST' && ctx.path.split('/').filter(Boolean).length === 1 && Object.keys(ctx.query).length === 0 && ctx.is('multipart/form-data');
server.middleware.splice(1, 0, (ctx, next) => {
  if (ctx.method === 'OPTIONS' || signed(ctx) || formUpload(ctx)) return next();
  throw new S3Error('AccessDenied', 'Access Denied');
});
// Stores (PUT, POST, copy, a completed multipart upload) as s3rver announces them; removals above.
server.on('event', (event) => {
  for (const { eventName, s3 } of event.Records) if (eventName.startsWith('ObjectCreated:')) announce(eventName, s3.bucket.name, s3.object.key, s3.object.size, s3.object.eTag);
});
server
  .run()
  .then((address) => process.stdout.write(JSON.stringify({ port: address.port }) + '\\n'))
  .catch((error) => { process.stderr.write(String(error && error.stack || error)); process.exit(1); });
`;

export async function startS3(opts: { dataDir: string; port?: number; buckets: string[] } & Supervision): Promise<EmbeddedS3> {
  const directory = resolve(opts.dataDir, 's3');
  mkdirSync(directory, { recursive: true });
  const listeners: ((change: ObjectChange) => void)[] = [];
  const onChange = (change: ObjectChange) => listeners.forEach((listener) => listener(change));
  const first = await launch(directory, opts.port ?? 0, opts.buckets, onChange);
  // A dead one comes back on the same port, with the same listeners: the endpoint stays right.
  const supervised = supervise(first, {
    name: 'the embedded S3',
    relaunch: () => launch(directory, first.port, opts.buckets, onChange),
    onRestart: (next) => opts.onRestart?.(next.pid),
    onGiveUp: opts.onGiveUp,
  });
  return {
    endpoint: `http://127.0.0.1:${first.port}`,
    port: first.port,
    pid: () => supervised.current().pid,
    onChange: (listener) => void listeners.push(listener),
    stop: supervised.stop,
  };
}

async function launch(directory: string, wantedPort: number, buckets: string[], onChange: (change: ObjectChange) => void): Promise<S3Process> {
  const options = JSON.stringify({ directory, port: wantedPort, buckets });
  // NODE_OPTIONS of the parent (a debugger, a loader) must not leak into the child.
  const env = { ...process.env, NODE_OPTIONS: '' };
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', childScript, s3rverModule, options], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stderr = keepOutput(child.stderr);
  const ended = new Promise<string>((resolveEnd) => {
    child.once('error', (error) => resolveEnd(`could not start the S3 stand-in (${error.message})`));
    child.once('exit', (code, signal) => resolveEnd(`the S3 stand-in exited (${signal ?? `code ${code}`})`));
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  void ended.then(() => process.off('exit', killOnExit)); // a restart adds its own

  let port: number;
  try {
    port = await readLines(child.stdout, ended, stderr, onChange);
  } catch (error) {
    child.kill('SIGKILL');
    process.off('exit', killOnExit);
    throw error;
  }
  child.stderr.pipe(process.stderr); // its request errors, if any, from now on

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin.end();
        const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
        await ended;
        clearTimeout(timer);
      }
      process.off('exit', killOnExit);
    })());
  return { port, pid: child.pid!, ended, stop };
}

/**
 * Reads the child's stdout: resolves with the port of its first line (or fails when it ends first),
 * then hands each later line's change to `onChange`.
 */
function readLines(stdout: Readable, ended: Promise<string>, stderr: () => string, onChange: (change: ObjectChange) => void): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const fail = (reason: string) => reject(new Error(`${reason} before listening${explainOutput(stderr())}`));
    const timer = setTimeout(() => fail(`the S3 stand-in did not start within ${readyTimeoutMs / 1000} s`), readyTimeoutMs);
    void ended.then((reason) => {
      clearTimeout(timer);
      fail(reason);
    });
    let listening = false;
    createInterface({ input: stdout, crlfDelay: Infinity }).on('line', (line) => {
      if (listening) {
        onChange(JSON.parse(line) as ObjectChange);
        return;
      }
      listening = true;
      clearTimeout(timer);
      const port = Number(/"port":(\d+)/.exec(line)?.[1]);
      if (port > 0) resolvePort(port);
      else reject(new Error(`the S3 stand-in printed no port: ${line}`));
    });
  });
}
