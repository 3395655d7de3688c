// A small MCP server whose `crash` tool exits the process mid-call (after a line on stderr).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'crash', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: 'crash', inputSchema: { type: 'object' } },
    { name: 'pid', inputSchema: { type: 'object' } },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (request.params.name === 'crash') {
    process.stderr.write('fatal: the crash tool was called\n');
    setTimeout(() => process.exit(3), 10);
    return new Promise(() => {});
  }
  return { content: [{ type: 'text', text: String(process.pid) }] };
});
await server.connect(new StdioServerTransport());
