import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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
 * One change of a queue's messages, appended to the journal as it happens: a message put on a queue
 * (sent, or moved there by a redrive), deleted, or every message of a queue purged.
 */
export type JournalEntry =
  | { op: 'put'; queue: string; id: string; body: string; attributes?: Record<string, unknown> }
  | { op: 'delete'; id: string }
  | { op: 'clear'; queue: string };

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
  readonly #journal: (entry: JournalEntry) => void;
  #restoring = false;

  /**
   * `journal` is called synchronously with each change, inside the request that makes it, so that
   * what it writes is on disk before the request answers (a send is accepted only once it is saved).
   */
  constructor(onChange: () => void, journal: (entry: JournalEntry) => void = () => undefined) {
    this.#onChange = onChange;
    this.#journal = journal;
  }

  track(queue: Queue): void {
    this.#queues.set(queue.QueueName, queue);
    const newRecord = queue.newRecord;
    queue.newRecord = (record, delay) => {
      const item = newRecord(record, delay) as QueueItem;
      const { MessageId: id, MessageBody: body, MessageAttributes: attributes } = item.record;
      if (!this.#restoring) this.#journal({ op: 'put', queue: queue.QueueName, id, body, ...(attributes ? { attributes } : {}) });
      this.#entries.delete(id); // a redrive keeps the id: it now lives here
      this.#entries.set(id, { queue, item });
      this.#onChange();
      return item;
    };
    const remove = queue.delete.bind(queue);
    queue.delete = (receiptHandle) => {
      const deleted = remove(receiptHandle);
      const id = messageIdOf(receiptHandle);
      if (deleted && id && this.#entries.get(id)?.queue === queue) {
        this.#journal({ op: 'delete', id });
        this.#entries.delete(id);
        this.#onChange();
      }
      return deleted;
    };
    const clearRecords = queue.clearRecords.bind(queue);
    queue.clearRecords = () => {
      clearRecords();
      this.#journal({ op: 'clear', queue: queue.QueueName });
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
    this.#restoring = true; // already on disk
    try {
      for (const message of messages) {
        const item = queue.setRecord({ MessageBody: message.body, MessageAttributes: message.attributes }, message.id) as QueueItem;
        // Keeps redrive honest across restarts: a poison message does not get five fresh tries.
        item.record.attributes.ApproximateReceiveCount = String(message.receiveCount);
      }
    } finally {
      this.#restoring = false;
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

/** Appends one change to the journal; synchronous, so a crash right after the send still finds it. */
export function appendJournal(file: string, entry: JournalEntry): void {
  appendFileSync(file, `${JSON.stringify(entry)}\n`);
}

/** Empties the journal once a snapshot holds everything it recorded. */
export const clearJournal = (file: string): void => writeFileSync(file, '');

/**
 * The queues as the last snapshot left them, with the journal's later changes applied in order. A
 * journal line the snapshot already holds (a crash between writing it and clearing the journal) lands
 * where it already is; a last line cut short by the crash is one whose send never answered, and is skipped.
 */
export function readQueueState(snapshotFile: string, journalFile: string): SavedQueues {
  const queues = readSavedQueues(snapshotFile);
  const where = new Map<string, { queue: string; message: SavedMessage }>();
  for (const [queue, messages] of Object.entries(queues)) for (const message of messages) where.set(message.id, { queue, message });
  const lines = existsSync(journalFile) ? readFileSync(journalFile, 'utf8').split('\n') : [];
  for (const line of lines) {
    let entry: JournalEntry;
    try {
      entry = JSON.parse(line) as JournalEntry;
    } catch {
      continue;
    }
    if (entry.op === 'put') {
      const before = where.get(entry.id);
      where.delete(entry.id); // kept in order of arrival: a moved message goes to the back
      where.set(entry.id, {
        queue: entry.queue,
        message: { id: entry.id, body: entry.body, ...(entry.attributes ? { attributes: entry.attributes } : {}), receiveCount: before?.message.receiveCount ?? 0 },
      });
    } else if (entry.op === 'delete') where.delete(entry.id);
    else for (const [id, held] of where) if (held.queue === entry.queue) where.delete(id);
  }
  const state: SavedQueues = {};
  for (const { queue, message } of where.values()) (state[queue] ??= []).push(message);
  return state;
}
