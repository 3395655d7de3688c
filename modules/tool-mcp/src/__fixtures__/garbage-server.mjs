// A small MCP server that writes lines that are not JSON-RPC to stdout, before and between its answers.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

process.stdout.write('Starting garbage server v1.0 ... \u001b[32mready\u001b[0m\n{"not": "json-rpc"}\n');
const server = new Server({ name: 'garbage', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => {
  process.stdout.write('listing tools!\n');
  return { tools: [{ name: 'hello', inputSchema: { type: 'object' } }] };
});
server.setRequestHandler(CallToolRequestSchema, async () => {
  process.stdout.write('<<< garbage >>>\n');
  return { content: [{ type: 'text', text: 'hello back' }] };
});
await server.connect(new StdioServerTransport());
