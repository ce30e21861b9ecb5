import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { createRequestHandler } from 'local-aws-sqs';

type Queue = ReturnType<typeof createRequestHandler>['service']['Queues'][number];

/**
 * What local-aws-sqs keeps per message. Its queues hold these in a private array, but every message
 * enters through the public `Queue.newRecord`, which returns the very object it stores.
 */
interface QueueItem {
  visible: boolean;
  record: {
    MessageId: string;
    MessageBody: string;
    MD5OfMessageBody: string;
    MessageAttributes?: Record<string, unknown>;
    attributes: Record<string, string>;
  };
}

export interface SavedMessage {
  id: string;
  body: string;
  attributes?: Record<string, unknown>;
  receiveCount: number;
}
export type SavedQueues = Record<string, SavedMessage[]>;

/**
 * Mirrors which messages each tracked queue holds, oldest first, in flight or not: local-aws-sqs
 * lives in memory and offers no way to list them. Messages leave a queue by DeleteMessage, a purge,
 * the end of their retention period, or a move to the dead-letter queue (seen as the same message id
 * entering the other queue).
 */
export class MessageLedger {
  readonly #entries = new Map<string, { queue: Queue; item: QueueItem }>();
  readonly #queues = new Map<string, Queue>();
  readonly #onChange: () => void;

  constructor(onChange: () => void) {
    this.#onChange = onChange;
  }

  track(queue: Queue): void {
    this.#queues.set(queue.QueueName, queue);
    const newRecord = queue.newRecord;
    queue.newRecord = (record, delay) => {
      const item = newRecord(record, delay) as QueueItem;
      this.#entries.delete(item.record.MessageId); // a redrive keeps the id: it now lives here
      this.#entries.set(item.record.MessageId, { queue, item });
      this.#onChange();
      return item;
    };
    const remove = queue.delete.bind(queue);
    queue.delete = (receiptHandle) => {
      const deleted = remove(receiptHandle);
      const id = messageIdOf(receiptHandle);
      if (deleted && id && this.#entries.get(id)?.queue === queue) {
        this.#entries.delete(id);
        this.#onChange();
      }
      return deleted;
    };
    const clearRecords = queue.clearRecords.bind(queue);
    queue.clearRecords = () => {
      clearRecords();
      for (const [id, entry] of this.#entries) if (entry.queue === queue) this.#entries.delete(id);
      this.#onChange();
    };
  }

  /** The messages of a tracked queue, oldest first; undefined for a queue that is not tracked. */
  messages(queueName: string): QueueItem[] | undefined {
    if (!this.#queues.has(queueName)) return undefined;
    const now = Date.now();
    const items: QueueItem[] = [];
    for (const [id, { queue, item }] of this.#entries) {
      const expiresAt = Number(item.record.attributes.SentTimestamp) + queue.MessageRetentionPeriod * 1000;
      if (expiresAt <= now) this.#entries.delete(id);
      else if (queue.QueueName === queueName) items.push(item);
    }
    return items;
  }

  snapshot(): SavedQueues {
    const saved: SavedQueues = {};
    for (const name of this.#queues.keys()) {
      saved[name] = (this.messages(name) ?? []).map(({ record }) => ({
        id: record.MessageId,
        body: record.MessageBody,
        ...(record.MessageAttributes ? { attributes: record.MessageAttributes } : {}),
        receiveCount: Number(record.attributes.ApproximateReceiveCount) || 0,
      }));
    }
    return saved;
  }

  /** Puts saved messages back on a tracked queue, in order, visible, with their id and receive count. */
  restore(queueName: string, messages: SavedMessage[]): void {
    const queue = this.#queues.get(queueName);
    if (!queue) return;
    for (const message of messages) {
      const item = queue.setRecord({ MessageBody: message.body, MessageAttributes: message.attributes }, message.id) as QueueItem;
      // Keeps redrive honest across restarts: a poison message does not get five fresh tries.
      item.record.attributes.ApproximateReceiveCount = String(message.receiveCount);
    }
  }
}

/** The message id inside a local-aws-sqs receipt handle (base64 of a uuid followed by JSON). */
function messageIdOf(receiptHandle: string): string | undefined {
  try {
    const text = Buffer.from(receiptHandle, 'base64').toString('utf8');
    const id = (JSON.parse(text.slice(text.indexOf('{'))) as { MessageId?: unknown }).MessageId;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

export function readSavedQueues(file: string): SavedQueues {
  if (!existsSync(file)) return {};
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { version?: number; queues?: SavedQueues };
    if (saved.version !== 1 || typeof saved.queues !== 'object' || saved.queues === null) throw new Error('unknown format');
    return saved.queues;
  } catch (error) {
    throw new Error(`cannot read the saved queue messages in ${file}: ${(error as Error).message}`);
  }
}

/** Writes atomically (temp file, then rename), so a crash mid-write never leaves half a file. */
export function writeSavedQueues(file: string, queues: SavedQueues): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ version: 1, queues })}\n`);
  renameSync(temp, file);
}
