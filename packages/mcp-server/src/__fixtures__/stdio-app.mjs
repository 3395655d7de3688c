/**
 * An app that serves its session's tools over stdio with @amplifier/mcp-server
 * (what an MCP host starts): `node stdio-app.mjs [maxLineBytes]`. Logs go to
 * stderr; it stops at the end of stdin.
 */
import { createMcpServer } from '@amplifier/mcp-server';
import { openAppSession } from './app-session.mjs';

const { session } = await openAppSession();
const mcp = createMcpServer({ expose: 'tools', session });
const maxLineBytes = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
const stdio = await mcp.serveStdio({ maxLineBytes, log: (m) => process.stderr.write(`${m}\n`) });
await stdio.ended;
await stdio.transport.settled(2000);
await mcp.close();
await session.cleanup();
