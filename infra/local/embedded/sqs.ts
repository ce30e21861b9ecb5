import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createRequestHandler } from 'local-aws-sqs';
import { appendJournal, clearJournal, MessageLedger, readQueueState, writeSavedQueues } from './sqs-ledger.ts';

/**
 * local-aws-sqs (SQS JSON protocol) in this process. Each named queue gets a dead-letter queue
 * `<name>-dlq` (redrive after 5 receives). The stand-in is in memory: its messages, in flight or
 * not, are saved to `<dataDir>/sqs.json` on stop and a second after any change, and put back, in
 * order, on the next start. Between two saves each change is appended to `<dataDir>/sqs.journal`
 * before the request that made it answers (issue 29: a job accepted and then lost in a crash within
 * that second was stuck for good), and the next start applies the journal to the snapshot.
 */
export interface EmbeddedSqs {
  endpoint: string;
  port: number;
  /** Queue URL by queue name, dead-letter queues included. */
  queueUrls: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * A ReceiveMessage carrying this header is a peek: the stand-in answers with every message now
 * waiting (not in flight), oldest first, and changes nothing. A plain SQS receive cannot do that:
 * it counts towards the redrive limit and returns at most 10 messages.
 */
export const peekHeader = 'x-maktaba-peek';

const region = 'us-east-1';
const accountId = '000000000000';
const maxReceiveCount = 5;
const saveDelayMs = 1_000;

export async function startSqs(opts: { dataDir: string; port?: number; queues: string[] }): Promise<EmbeddedSqs> {
  mkdirSync(opts.dataDir, { recursive: true });
  const file = resolve(opts.dataDir, 'sqs.json');
  const journal = resolve(opts.dataDir, 'sqs.journal');
  const saved = readQueueState(file, journal);
  const names = [...new Set(opts.queues)];
  const { service, requestHandler } = createRequestHandler({
    port: opts.port ?? 0,
    hostname: '127.0.0.1',
    region,
    accountId,
    // Dead-letter queues first: a redrive policy must name an existing queue.
    queues: [
      ...names.map((name) => ({ QueueName: `${name}-dlq` })),
      ...names.map((name) => ({
        QueueName: name,
        Attributes: {
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: `arn:aws:sqs:${region}:${accountId}:${name}-dlq`, maxReceiveCount }),
        },
      })),
    ],
  });

  let stopped = false;
  let saveTimer: NodeJS.Timeout | undefined;
  const save = () => {
    clearTimeout(saveTimer);
    saveTimer = undefined;
    writeSavedQueues(file, ledger.snapshot());
    clearJournal(journal); // after the snapshot: a crash between the two replays changes it already holds, harmlessly
  };
  const saveSoon = () => {
    try {
      save();
    } catch (error) {
      process.stderr.write(`SQS stand-in: ${(error as Error).message}\n`); // the next save or stop() tries again
    }
  };
  const ledger = new MessageLedger(
    () => {
      if (!stopped && !saveTimer) saveTimer = setTimeout(saveSoon, saveDelayMs).unref();
    },
    // A journal that cannot be written fails the send (SQS's 500): the sender learns it was not accepted.
    // Not once stopped: the shutdown's own clearing of memory (resetAll) is no purge, and the snapshot holds all.
    (entry) => {
      if (!stopped) appendJournal(journal, entry);
    },
  );
  for (const queue of service.Queues) {
    ledger.track(queue);
    answerLongPollsEarly(queue, () => stopped);
  }
  for (const [name, messages] of Object.entries(saved)) ledger.restore(name, messages);
  save(); // the journal's changes into the snapshot, so the journal starts empty

  const server = createServer((req, res) => {
    if (req.headers[peekHeader]) void servePeek(req, res, ledger);
    else void requestHandler(req, res);
  });
  let port: number;
  try {
    port = await listen(server, opts.port ?? 0);
  } catch (error) {
    stopped = true;
    clearTimeout(saveTimer);
    service.resetAll();
    throw error;
  }
  service.PORT = port; // queue URLs carry the port, which is known only now when it was 0

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      stopped = true;
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections(); // SDK keep-alive sockets and long polls would hold close() open
      });
      save();
      service.resetAll(); // clears its timers
    })());

  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    queueUrls: Object.fromEntries(service.Queues.map((queue) => [queue.QueueName, queue.QueueUrl])),
    stop,
  };
}

type Queue = ReturnType<typeof createRequestHandler>['service']['Queues'][number];

/**
 * Real SQS answers a long poll as soon as any message is available; local-aws-sqs holds it until a
 * full batch (MaxNumberOfMessages) is there or the whole wait time has passed, which would stall a
 * worker for up to 20 s per batch. Polling its short receive (about 40 ms each) restores the real behaviour.
 */
function answerLongPollsEarly(queue: Queue, stopped: () => boolean): void {
  const receive = queue.receive.bind(queue);
  queue.receive = async (params: { WaitTimeSeconds?: number | string }) => {
    const waitSeconds = Number(params.WaitTimeSeconds ?? queue.ReceiveMessageWaitTimeSeconds) || 0;
    const deadline = Date.now() + waitSeconds * 1000;
    for (;;) {
      const messages = await receive({ ...params, WaitTimeSeconds: 0 });
      if (messages.length > 0 || Date.now() >= deadline || stopped()) return messages;
    }
  };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolvePort, reject) => {
    server.once('error', (error) => reject(new Error(`the SQS stand-in cannot listen on 127.0.0.1:${port}: ${error.message}`)));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolvePort(typeof address === 'object' && address ? address.port : port);
    });
  });
}

async function servePeek(req: IncomingMessage, res: ServerResponse, ledger: MessageLedger): Promise<void> {
  const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', ...headers });
    res.end(JSON.stringify(body));
  };
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const { QueueUrl } = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { QueueUrl?: unknown };
    const name = typeof QueueUrl === 'string' ? QueueUrl.split('/').filter(Boolean).pop() : undefined;
    const messages = name === undefined ? undefined : ledger.messages(name);
    if (!messages) {
      send(400, { __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: `The specified queue does not exist: ${String(QueueUrl)}` }, {
        'x-amzn-query-error': 'AWS.SimpleQueueService.NonExistentQueue;Sender',
      });
      return;
    }
    const waiting = messages.filter((item) => item.visible).map(({ record }) => record);
    send(
      200,
      { Messages: waiting.map((r) => ({ MessageId: r.MessageId, ReceiptHandle: '', MD5OfBody: r.MD5OfMessageBody, Body: r.MessageBody })) },
      { [peekHeader]: '1' },
    );
  } catch (error) {
    send(500, { __type: 'com.amazonaws.sqs#InternalError', message: (error as Error).message });
  }
}

/**
 * The bodies of the messages now waiting on a queue of the embedded SQS, oldest first, without
 * receiving them. Works from any process through the SQS protocol; fails on an endpoint that does
 * not know the peek header (where the request was a plain receive with visibility timeout 0).
 */
export async function peekQueue(endpoint: string, queueUrl: string): Promise<string[]> {
  const client = new SQSClient({
    endpoint,
    region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  let peeked = false;
  client.middlewareStack.add(
    (next) => async (args) => {
      (args.request as { headers: Record<string, string> }).headers[peekHeader] = '1';
      const result = await next(args);
      peeked = (result.response as { headers?: Record<string, string> }).headers?.[peekHeader] === '1';
      return result;
    },
    { step: 'build', name: 'maktabaPeekHeader' },
  );
  try {
    const out = await client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0, WaitTimeSeconds: 0 }),
    );
    if (!peeked) throw new Error(`${endpoint} is not the embedded SQS stand-in: it cannot peek at ${queueUrl}`);
    return (out.Messages ?? []).map((message) => message.Body ?? '');
  } finally {
    client.destroy();
  }
}
