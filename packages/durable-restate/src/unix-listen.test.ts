/**
 * A local Restate server with no TCP port at all (unix listen mode, in a 0700
 * data dir) and request identity: the admin API and `/query` answer only on
 * their unix sockets, and the worker takes only calls Restate signed.
 */
import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import { tcpListenPorts } from '@amplifier/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithoutRestate } from './__fixtures__/cluster.js';
import { registerDeployment } from './admin.js';
import { createRequestIdentity } from './identity.js';
import { type LocalRestate, startLocalRestate } from './local-server.js';
import { restateFetch, socketPathOf } from './restate-http.js';
import { TurnClient } from './turn-client.js';
import { startWorker, type Worker } from './worker.js';

const skip = skipWithoutRestate();

/** An HTTP/2 cleartext request to the worker (what Restate speaks to it): the status. */
function h2(
  url: string,
  pathname: string,
  headers: Record<string, string>,
  body?: Uint8Array,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url);
    session.on('error', reject);
    const request = session.request({
      ':path': pathname,
      ':method': body === undefined ? 'GET' : 'POST',
      ...headers,
    });
    request.on('response', (h) => {
      resolve(Number(h[':status']));
      // Only the status is read: end the connection now (a close would wait for the unread body,
      // and the worker's close waits for this connection on Node 24).
      session.destroy();
    });
    request.on('error', reject);
    request.end(body);
  });
}

describe.skipIf(skip)('a local server in unix listen mode with request identity', () => {
  let dir: string;
  let server: LocalRestate;
  let worker: Worker;
  let publicKey: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'amplifier-restate-unix-'));
    const identity = createRequestIdentity(dir);
    publicKey = identity.publicKey;
    server = await startLocalRestate({
      baseDir: dir,
      listen: 'unix',
      requestIdentityKeyFile: identity.privateKeyFile,
    });
    worker = await startWorker({
      identityKeys: [publicKey],
      createSession: () => {
        throw new Error('no turn runs in this test');
      },
    });
  });
  afterAll(async () => {
    await worker?.close();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('listens on no TCP port; admin and ingress answer on sockets in the 0700 data dir', async () => {
    expect(tcpListenPorts(server.pid)).toEqual([]);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(socketPathOf(server.adminUrl)).toBe(server.adminSocket);
    expect(fs.statSync(server.adminSocket!).isSocket()).toBe(true);
    expect((await restateFetch(`${server.adminUrl}/health`)).status).toBe(200);
    const query = await restateFetch(`${server.adminUrl}/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: 'SELECT id FROM sys_deployment' }),
    });
    expect(query.status, await query.clone().text()).toBe(200);
    expect((await restateFetch(`${server.ingressUrl}/restate/health`)).status).toBe(200);
  });

  it('the private key is 0600 and its id is the publickeyv1 form', () => {
    expect(fs.statSync(path.join(dir, 'request-identity.pem')).mode & 0o777).toBe(0o600);
    expect(publicKey).toMatch(/^publickeyv1_[1-9A-HJ-NP-Za-km-z]{40,50}$/);
  });

  it('Restate registers the worker with signed calls; unsigned or foreign-signed calls to the worker are refused', async () => {
    await registerDeployment(server.adminUrl, worker.url);
    const accept = { accept: 'application/vnd.restate.endpointmanifest.v3+json' };
    expect(await h2(worker.url, '/discover', accept)).toBe(401);
    expect(
      await h2(
        worker.url,
        '/invoke/amplifier-session/turn',
        { 'content-type': 'application/vnd.restate.invocation.v5' },
        new Uint8Array(8),
      ),
    ).toBe(401);
    const forged = {
      status: await h2(worker.url, '/discover', {
        ...accept,
        'x-restate-signature-scheme': 'v1',
        'x-restate-jwt-v1':
          'eyJhbGciOiJFZERTQSIsImtpZCI6InB1YmxpY2tleXYxX3gifQ.eyJhdWQiOiIvZGlzY292ZXIifQ.AAAA',
      }),
    };
    expect(forged.status).toBe(401);
    // Restate's own (signed) call through the ingress socket reaches the worker: a new session has no transcript.
    expect(await new TurnClient({ ingressUrl: server.ingressUrl }).transcript('nobody-yet')).toEqual([]);
  });
});
