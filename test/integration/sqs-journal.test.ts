import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { startSqs } from '../../infra/local/embedded/sqs.ts';
import { projectRoot } from '../../infra/local/state.ts';

/**
 * Issue 29: a message the local queue accepted survives the process being killed at once (before the
 * snapshot a second later), as an SQS SendMessage that answered survives on AWS.
 */
const client = (endpoint: string) =>
  new SQSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Starts the stand-in in a child process over `dataDir` and resolves once it serves. */
function startChild(dataDir: string) {
  // Node itself with tsx's loader, not the tsx command: that runs the script in a second process, which a kill of the first would leave running.
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/sqs-child.ts', dataDir], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise<{ endpoint: string; queueUrl: string; kill(): Promise<void> }>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('\n')) return;
      const started = JSON.parse(out) as { endpoint: string; queueUrl: string };
      const kill = () => new Promise<void>((done) => (child.once('exit', () => done()), child.kill('SIGKILL')));
      resolve({ ...started, kill });
    });
    child.once('exit', (code) => reject(new Error(`the SQS stand-in exited with ${code}`)));
  });
}

const receiveAll = async (sqs: SQSClient, QueueUrl: string) =>
  (await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }))).Messages ?? [];

describe('the local SQS stand-in across a crash', () => {
  it('still holds a message sent right before the process was killed, and not one deleted before it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'maktaba-sqs-'));
    dirs.push(dataDir);
    const first = await startChild(dataDir);
    const sqs = client(first.endpoint);
    await sqs.send(new SendMessageCommand({ QueueUrl: first.queueUrl, MessageBody: '{"jobId":"gone"}' }));
    const [gone] = await receiveAll(sqs, first.queueUrl);
    await sqs.send(new DeleteMessageCommand({ QueueUrl: first.queueUrl, ReceiptHandle: gone!.ReceiptHandle! }));
    const { MessageId } = await sqs.send(new SendMessageCommand({ QueueUrl: first.queueUrl, MessageBody: '{"jobId":"kept"}' }));
    await first.kill(); // at once: no save timer has run, no stop()
    sqs.destroy();

    const second = await startSqs({ dataDir, queues: ['jobs'] });
    const again = client(second.endpoint);
    try {
      const messages = await receiveAll(again, second.queueUrls.jobs!);
      expect(messages.map((m) => [m.MessageId, m.Body])).toEqual([[MessageId, '{"jobId":"kept"}']]);
    } finally {
      again.destroy();
      await second.stop();
    }
  });
});
