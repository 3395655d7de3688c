import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { tcpListenPorts } from './proc-net.js';

describe.skipIf(process.platform !== 'linux')('tcpListenPorts', () => {
  it('lists a port this process listens on, and not one it only connected to or has closed', async () => {
    const server = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const client = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    const listening = tcpListenPorts(process.pid);
    expect(listening).toContain(port);
    expect(listening.filter((p) => p === client.localPort)).toEqual([]);
    client.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(tcpListenPorts(process.pid)).not.toContain(port);
  });
});
