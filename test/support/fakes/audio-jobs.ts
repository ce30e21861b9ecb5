import type { AudioJob, AudioJobStore } from '../../../lib/audio/audio-job.ts';
import { copy } from './copy.ts';

/** AudioJobStore in memory (lib/adapters/dynamo/audio-jobs.ts): each chunk counted once, finished once. */
export class FakeAudioJobs implements AudioJobStore {
  readonly jobs = new Map<string, AudioJob>();
  /** By job: the chunks counted. */
  readonly chunks = new Map<string, Set<number>>();

  async create(job: AudioJob) {
    if (this.jobs.has(job._id)) throw new Error(`Job ${job._id} exists (the adapter's condition fails)`);
    this.jobs.set(job._id, copy(job));
  }

  async get(jobId: string) {
    const job = this.jobs.get(jobId);
    return job && copy(job);
  }

  async list() {
    return [...this.jobs.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1)).map(copy);
  }

  async start(jobId: string, totalLines: number, totalChunks: number, at: string) {
    const job = this.jobs.get(jobId);
    if (!job || (job.status !== 'pending' && job.status !== 'in_progress')) return;
    Object.assign(job, { status: 'in_progress', totalLines, totalChunks, doneLines: job.doneLines ?? 0, updatedAt: at });
  }

  async countChunk(jobId: string, chunk: number, lines: number, at: string) {
    const job = this.jobs.get(jobId);
    if (!job) throw new Error(`no job ${jobId}`);
    const counted = this.chunks.get(jobId) ?? new Set<number>();
    this.chunks.set(jobId, counted);
    if (counted.has(chunk)) return undefined;
    counted.add(chunk);
    Object.assign(job, { doneLines: (job.doneLines ?? 0) + lines, updatedAt: at });
    return copy(job);
  }

  async countedChunks(jobId: string) {
    return new Set(this.chunks.get(jobId));
  }

  async setProgress(jobId: string, progress: number, at: string) {
    const job = this.jobs.get(jobId);
    if (job?.status === 'in_progress' && job.progress < progress) Object.assign(job, { progress, updatedAt: at });
  }

  async finish(jobId: string, outcome: { status: 'completed' } | { status: 'failed'; error: string }, at: string) {
    const job = this.jobs.get(jobId);
    if (!job) return false;
    if (outcome.status === 'completed') {
      if (job.status !== 'in_progress') return false;
      Object.assign(job, { status: 'completed', progress: 100, updatedAt: at });
    } else {
      if (job.status !== 'pending' && job.status !== 'in_progress') return false;
      Object.assign(job, { status: 'failed', error: outcome.error, updatedAt: at });
    }
    return true;
  }
}
