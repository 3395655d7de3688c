/**
 * Bounded capture of a byte stream: the first `headBytes` bytes, a ring of
 * the last `tailBytes` bytes, and the total count. Memory stays flat however
 * much is written.
 */

/** What a `BoundedCapture` kept. */
export interface CapturedBytes {
  /** The first `min(total, headBytes)` bytes. */
  head: Buffer;
  /** The last `min(total, tailBytes)` bytes (they may overlap the head when little was written). */
  tail: Buffer;
  /** Every byte pushed, kept or not. */
  total: number;
}

/** The limits of a `BoundedCapture`. */
export interface CaptureLimits {
  /** Bytes kept from the start of the stream. */
  headBytes: number;
  /** Bytes kept from the end of the stream (default 0: the head only). */
  tailBytes?: number;
}

/** Keeps the head and a ring of the tail of a byte stream; `push` never grows past the limits. */
export class BoundedCapture {
  readonly headBytes: number;
  readonly tailBytes: number;
  #total = 0;
  readonly #headChunks: Buffer[] = [];
  #headLength = 0;
  #ring: Buffer | undefined;
  #ringPos = 0;
  #ringLength = 0;

  constructor(limits: CaptureLimits) {
    this.headBytes = Math.max(0, Math.floor(limits.headBytes));
    this.tailBytes = Math.max(0, Math.floor(limits.tailBytes ?? 0));
  }

  /** Bytes pushed so far. */
  get total(): number {
    return this.#total;
  }

  /** Count `chunk` and keep what falls in the head or the tail (copied: the chunk may be reused). */
  push(chunk: Uint8Array): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headLength < this.headBytes) {
      const take = Math.min(this.headBytes - this.#headLength, rest.length);
      this.#headChunks.push(Buffer.from(rest.subarray(0, take))); // a copy: never pin the pooled chunk
      this.#headLength += take;
      rest = rest.subarray(take);
    }
    const cap = this.tailBytes;
    if (rest.length === 0 || cap === 0) return;
    // Bytes past the head go to the ring; the tail may also reach back into the head (see #tail).
    this.#ring ??= Buffer.allocUnsafe(cap);
    if (rest.length >= cap) {
      this.#ring.set(rest.subarray(rest.length - cap), 0);
      this.#ringPos = 0;
      this.#ringLength = cap;
      return;
    }
    const first = Math.min(rest.length, cap - this.#ringPos);
    this.#ring.set(rest.subarray(0, first), this.#ringPos);
    this.#ring.set(rest.subarray(first), 0);
    this.#ringPos = (this.#ringPos + rest.length) % cap;
    this.#ringLength = Math.min(cap, this.#ringLength + rest.length);
  }

  /** The head, the tail and the total so far (fresh buffers). */
  bytes(): CapturedBytes {
    const head = Buffer.concat(this.#headChunks, this.#headLength);
    return { head, tail: this.#tail(head), total: this.#total };
  }

  #tail(head: Buffer): Buffer {
    const want = Math.min(this.tailBytes, this.#total);
    let ring: Buffer = Buffer.alloc(0);
    if (this.#ring !== undefined) {
      ring =
        this.#ringLength < this.tailBytes
          ? Buffer.from(this.#ring.subarray(0, this.#ringLength))
          : Buffer.concat([this.#ring.subarray(this.#ringPos), this.#ring.subarray(0, this.#ringPos)]);
    }
    const fromHead = want - ring.length;
    return fromHead > 0 ? Buffer.concat([head.subarray(head.length - fromHead), ring]) : ring;
  }
}
