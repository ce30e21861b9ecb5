/** The Queue port: one job queue (SQS on AWS and locally). Bodies are JSON objects. */
export interface Queue {
  send(body: object): Promise<{ messageId: string }>;
}
