import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { eventKey, type S3EventRecord } from '../../../lib/adapters/s3/events.ts';
import type { ObjectChange } from './s3.ts';

/**
 * The local stand-in for S3 event notifications to SQS (infra/storage.ts `notifyAudioChanges` on
 * AWS): each object the embedded S3 stores in or removes from a notified bucket, with a key of the
 * configured suffix, becomes one message `{"Records": [record]}` on the queue, the key form-encoded,
 * as S3 sends it. Messages go in batches of 10 (SendMessageBatch); a send that fails is tried again
 * until it goes, so an event is not lost to a moment's failure (it is lost if the process dies first).
 */
export interface BucketNotification {
  bucket: string;
  /** Queue name, one of the stores' queues. */
  queue: string;
  /** Only keys ending so are announced. */
  suffix: string;
}

const batchSize = 10;
const sendsInFlight = 4;
const retryMs = { first: 100, most: 2_000 };

export interface NotificationForwarder {
  forward(change: ObjectChange): void;
  /** Waits until every message so far is sent, up to `timeoutMs`. */
  flush(timeoutMs: number): Promise<void>;
  stop(): void;
}

/** The last sequencer given: microseconds, one more than the last when two changes share one. */
let sequence = 0;

/** The record S3 writes for a change (the fields a consumer reads; S3's own also name the request and its owner). */
function eventRecord({ eventName, eventTime, bucket, key, size, eTag }: ObjectChange): S3EventRecord {
  // S3 orders the events of one key by this hexadecimal number; changes reach here in the order s3rver made them.
  sequence = Math.max(sequence + 1, Date.now() * 1000);
  const sequencer = sequence.toString(16).toUpperCase().padStart(16, '0');
  return {
    eventVersion: '2.1',
    eventSource: 'aws:s3',
    awsRegion: 'us-east-1',
    eventTime,
    eventName,
    s3: { s3SchemaVersion: '1.0', bucket: { name: bucket, arn: `arn:aws:s3:::${bucket}` }, object: { key: eventKey(key), size, eTag, sequencer } },
  };
}

export function forwardNotifications(sqs: SQSClient, routes: readonly { bucket: string; suffix: string; queueUrl: string }[]): NotificationForwarder {
  const waiting = new Map<string, string[]>(routes.map((r) => [r.queueUrl, []]));
  let inFlight = 0;
  let stopped = false;
  let failures = 0;
  let idle: (() => void)[] = [];

  const pending = () => inFlight + [...waiting.values()].reduce((n, bodies) => n + bodies.length, 0);
  const pump = () => {
    for (const [queueUrl, bodies] of waiting) {
      while (!stopped && bodies.length > 0 && inFlight < sendsInFlight) void send(queueUrl, bodies.splice(0, batchSize));
    }
    if (pending() === 0) {
      for (const done of idle) done();
      idle = [];
    }
  };
  const send = async (queueUrl: string, bodies: string[]) => {
    inFlight++;
    try {
      const out = await sqs.send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: bodies.map((MessageBody, i) => ({ Id: String(i), MessageBody })) }),
      );
      const refused = new Set((out.Failed ?? []).map((f) => Number(f.Id)));
      if (refused.size > 0) throw Object.assign(new Error(`${refused.size} messages refused`), { refused });
      failures = 0;
    } catch (error) {
      const refused = (error as { refused?: Set<number> }).refused;
      waiting.get(queueUrl)!.unshift(...(refused ? bodies.filter((_, i) => refused.has(i)) : bodies));
      if (failures++ === 0) process.stderr.write(`S3 notifications: ${(error as Error).message}; trying again\n`);
      await new Promise((resolve) => setTimeout(resolve, Math.min(retryMs.most, retryMs.first * 2 ** Math.min(failures, 5))).unref());
    } finally {
      inFlight--;
      pump();
    }
  };

  return {
    forward(change) {
      const route = routes.find((r) => r.bucket === change.bucket && change.key.endsWith(r.suffix));
      if (!route) return;
      waiting.get(route.queueUrl)!.push(JSON.stringify({ Records: [eventRecord(change)] }));
      pump();
    },
    flush(timeoutMs) {
      if (pending() === 0) return Promise.resolve();
      return new Promise((resolve) => {
        idle.push(resolve);
        setTimeout(resolve, timeoutMs).unref();
      });
    },
    stop() {
      stopped = true;
    },
  };
}
