// A worker thread's entry under `npm start`: the parent runs under tsx, a thread starts bare, so it
// registers tsx's loader before importing its TypeScript module (`workerData.entry`).
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
