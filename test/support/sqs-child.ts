import { startSqs } from '../../infra/local/embedded/sqs.ts';

/** The SQS stand-in alone in a process of its own, over `argv[2]`, so a test can kill it mid-second. */
const sqs = await startSqs({ dataDir: process.argv[2]!, queues: ['jobs'] });
process.stdout.write(`${JSON.stringify({ endpoint: sqs.endpoint, queueUrl: sqs.queueUrls.jobs })}\n`);
