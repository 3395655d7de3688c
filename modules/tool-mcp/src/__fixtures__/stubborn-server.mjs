// A working MCP server that ignores SIGTERM and stdin EOF, with a child that does the same.
// Its `pids` tool answers "<own pid> <child pid>".
import { spawn } from 'node:child_process';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

process.on('SIGTERM', () => {});
const child = spawn(
  process.execPath,
  ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1 << 30);"],
  {
    stdio: 'ignore',
  },
);
setInterval(() => {}, 1 << 30);
const server = new Server({ name: 'stubborn', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: 'pids', inputSchema: { type: 'object' } }],
}));
server.setRequestHandler(CallToolRequestSchema, async () => ({
  content: [{ type: 'text', text: `${process.pid} ${child.pid}` }],
}));
const transport = new StdioServerTransport();
transport.onclose = () => {};
await server.connect(transport);
server.onclose = () => {};
process.stdin.on('end', () => {}); // ignore EOF
