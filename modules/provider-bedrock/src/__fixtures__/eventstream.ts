/**
 * Test helpers: AWS event-stream frames (`application/vnd.amazon.eventstream`)
 * written from JSON, so synthetic streams (reasoning deltas with a signature,
 * exception frames) can be replayed like the recorded one. Checked against
 * the recording: re-encoding its decoded frames gives its bytes back.
 */
import { crc32 } from 'node:zlib';
import type { FakeReply } from '@amplifier/provider-http/testing';

/** One frame as the decoded recording lists it. */
export interface Frame {
  headers: Record<string, string>;
  payload: unknown;
}

/** One binary frame: prelude (lengths), prelude CRC, string headers, JSON payload, message CRC. */
export function encodeFrame(frame: Frame): Buffer {
  const headers = Buffer.concat(
    Object.entries(frame.headers).map(([name, value]) => {
      const n = Buffer.from(name, 'utf8');
      const v = Buffer.from(value, 'utf8');
      const head = Buffer.alloc(1 + n.length + 1 + 2);
      head.writeUInt8(n.length, 0);
      n.copy(head, 1);
      head.writeUInt8(7, 1 + n.length); // string
      head.writeUInt16BE(v.length, 2 + n.length);
      return Buffer.concat([head, v]);
    }),
  );
  const payload = Buffer.from(JSON.stringify(frame.payload), 'utf8');
  const total = 12 + headers.length + payload.length + 4;
  const prelude = Buffer.alloc(8);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headers.length, 4);
  const preludeCrc = Buffer.alloc(4);
  preludeCrc.writeUInt32BE(crc32(prelude), 0);
  const body = Buffer.concat([prelude, preludeCrc, headers, payload]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body), 0);
  return Buffer.concat([body, crc]);
}

/** An event frame of type `type`. */
export function event(type: string, payload: unknown): Frame {
  return {
    headers: { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' },
    payload,
  };
}

/** An in-stream exception frame (`internalServerException`, `throttlingException`, ...). */
export function exception(type: string, message: string): Frame {
  return {
    headers: { ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' },
    payload: { message },
  };
}

/** The frames of the decoded recording (`.events.jsonl`). */
export function parseJsonl(text: string): Frame[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Frame);
}

/**
 * A reply that serves an event stream (HTTP 200, `application/vnd.amazon.eventstream`)
 * in `pieceSize`-byte writes; `drop` destroys the connection after the bytes instead of ending.
 */
export function eventStreamReply(
  bytes: Buffer,
  options: { pieceSize?: number; drop?: boolean } = {},
): FakeReply {
  return async (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
    const size = options.pieceSize ?? bytes.length;
    for (let at = 0; at < bytes.length; at += size) {
      const piece = bytes.subarray(at, at + size);
      await new Promise<void>((resolve) => response.write(piece, () => resolve()));
    }
    if (options.drop) response.socket?.destroy();
    else response.end();
  };
}

/** Frames as one stream's bytes. */
export function encodeStream(frames: readonly Frame[]): Buffer {
  return Buffer.concat(frames.map(encodeFrame));
}
