/**
 * grep's worker threads. A search of a directory first lists the files that
 * pass the filters (one worker), then splits the list into contiguous chunks
 * searched in parallel (up to the CPU count) and merges the results in order,
 * so the output is the same as one sequential pass. Workers are reused while
 * idle (unref'd) and terminated on the time limit, on cancellation, or when the
 * module is unmounted.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { type GrepJob, type GrepOutcome, grepWorkerMain } from './grep-worker.js';

const WORKER_SOURCE = `(${grepWorkerMain.toString()})(require('node:fs'), require('node:worker_threads').parentPort);`;
/** Below this many files per worker, splitting costs more than it saves (default). */
const MIN_FILES_PER_WORKER = 500;

export type RunOutcome = { ok: GrepOutcome } | { error: string } | { timeout: true } | { cancelled: true };

/** Merge chunk outcomes (each windowed on `[0, offset + limit)`) into one windowed on `[offset, offset + limit)`. */
export function mergeOutcomes(parts: readonly GrepOutcome[], offset: number, limit: number): GrepOutcome {
  const merged: GrepOutcome = {
    files: [],
    results: [],
    counts: [],
    totalMatches: 0,
    totalItems: 0,
    filesSearched: 0,
    skipped: { binary: 0, too_large: 0, unreadable: 0 },
  };
  const end = offset + limit;
  for (const part of parts) {
    const base = merged.totalItems;
    const keep = <T>(items: readonly T[], into: T[]): void => {
      items.forEach((item, i) => {
        if (base + i >= offset && base + i < end) into.push(item);
      });
    };
    keep(part.files, merged.files);
    keep(part.results, merged.results);
    keep(part.counts, merged.counts);
    merged.totalItems += part.totalItems;
    merged.totalMatches += part.totalMatches;
    merged.filesSearched += part.filesSearched;
    merged.skipped.binary += part.skipped.binary;
    merged.skipped.too_large += part.skipped.too_large;
    merged.skipped.unreadable += part.skipped.unreadable;
  }
  return merged;
}

export class GrepWorkers {
  readonly #idle: Worker[] = [];
  readonly #all = new Set<Worker>();
  readonly #parallelism: number;
  readonly #minFilesPerWorker: number;
  #closed = false;

  /** `parallelism`: most workers per search (default: CPUs, at most 4). */
  constructor(options: { parallelism?: number; minFilesPerWorker?: number } = {}) {
    this.#parallelism = Math.max(1, options.parallelism ?? Math.min(4, os.availableParallelism()));
    this.#minFilesPerWorker = Math.max(1, options.minFilesPerWorker ?? MIN_FILES_PER_WORKER);
  }

  #spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 512 } });
    this.#all.add(worker);
    worker.on('exit', () => {
      this.#all.delete(worker);
      const at = this.#idle.indexOf(worker);
      if (at !== -1) this.#idle.splice(at, 1);
    });
    worker.on('error', () => undefined); // reported to the running call through its own listener
    return worker;
  }

  /** One job on one worker; a `stop` abort terminates the worker. Never rejects. */
  #once(job: GrepJob, stop: AbortSignal): Promise<RunOutcome> {
    if (stop.aborted) return Promise.resolve(stopped(stop));
    const worker = this.#idle.pop() ?? this.#spawn();
    worker.ref();
    return new Promise((resolve) => {
      const finish = (value: RunOutcome, reuse: boolean): void => {
        stop.removeEventListener('abort', onStop);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (reuse && !this.#closed && this.#idle.length < this.#parallelism) {
          worker.unref();
          this.#idle.push(worker);
        } else {
          void worker.terminate();
        }
        resolve(value);
      };
      const onMessage = (message: RunOutcome): void => finish(message, true);
      const onError = (error: Error): void => finish({ error: error.message }, false);
      const onExit = (): void => finish({ error: 'the search worker stopped unexpectedly' }, false);
      const onStop = (): void => finish(stopped(stop), false);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      stop.addEventListener('abort', onStop, { once: true });
      worker.postMessage(job);
    });
  }

  /** Run a search within `timeoutMs`; `signal` cancels it. Never rejects. */
  async run(job: GrepJob, signal: AbortSignal | undefined, timeoutMs: number): Promise<RunOutcome> {
    if (this.#closed) return { error: 'the grep tool has been unmounted' };
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort('timeout'), timeoutMs);
    const onCancel = (): void => stop.abort('cancelled');
    if (signal?.aborted) onCancel();
    signal?.addEventListener('abort', onCancel, { once: true });
    try {
      if (job.baseIsFile || this.#parallelism === 1) return await this.#once(job, stop.signal);
      const listing = await this.#once({ ...job, listOnly: true }, stop.signal);
      if (!('ok' in listing)) return listing;
      const files = listing.ok.listed ?? [];
      const chunks = Math.max(
        1,
        Math.min(this.#parallelism, Math.floor(files.length / this.#minFilesPerWorker)),
      );
      const size = Math.ceil(files.length / chunks);
      const window = Math.min(Number.MAX_SAFE_INTEGER, job.offset + job.limit);
      const parts = await Promise.all(
        Array.from({ length: chunks }, (_, i) =>
          this.#once(
            { ...job, files: files.slice(i * size, (i + 1) * size), offset: 0, limit: window },
            stop.signal,
          ),
        ),
      );
      const failed = parts.find((part) => !('ok' in part));
      if (failed !== undefined) return failed;
      const merged = mergeOutcomes(
        parts.map((part) => (part as { ok: GrepOutcome }).ok),
        job.offset,
        job.limit,
      );
      merged.skipped.unreadable += listing.ok.skipped.unreadable;
      return { ok: merged };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCancel);
    }
  }

  /** Terminate every worker. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#idle.length = 0;
    await Promise.all([...this.#all].map((worker) => worker.terminate()));
  }
}

function stopped(stop: AbortSignal): RunOutcome {
  return stop.reason === 'cancelled' ? { cancelled: true } : { timeout: true };
}
