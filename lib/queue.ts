/** The Queue port: one job queue (SQS on AWS and locally). Bodies are JSON objects. */
export interface Queue {
  send(body: object): Promise<{ messageId: string }>;
}

/** Deliveries of a job message before it moves to the dead-letter queue (the last try knows it is the last). */
export const maxReceives = 5;
