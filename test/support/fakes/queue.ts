import type { Queue } from '../../../lib/queue.ts';

/** Queue in memory (lib/adapters/sqs/queue.ts): the messages sent, in order; `failing` makes `send` throw. */
export class FakeQueue implements Queue {
  readonly sent: { messageId: string; body: object }[] = [];
  failing: Error | undefined;

  async send(body: object) {
    if (this.failing) throw this.failing;
    const messageId = `message-${this.sent.length + 1}`;
    this.sent.push({ messageId, body: structuredClone(body) });
    return { messageId };
  }
}
