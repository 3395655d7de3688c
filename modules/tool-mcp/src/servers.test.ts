// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the ${VAR} syntax of MCP configs is what these tests read
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expandVariables, loadMcpServers, mcpConfigPaths } from './servers.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

function tree(files: Record<string, unknown>): { home: string; cwd: string; root: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-mcp-config-'));
  roots.push(root);
  for (const [file, content] of Object.entries(files)) {
    const full = path.join(root, file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, typeof content === 'string' ? content : JSON.stringify(content));
  }
  return { root, home: path.join(root, 'home'), cwd: path.join(root, 'project') };
}

describe('mcpConfigPaths', () => {
  it('names the user, project and env files', () => {
    expect(mcpConfigPaths({ cwd: '/p', home: '/h', env: { AMPLIFIER_MCP_CONFIG: 'x.json' } })).toEqual({
      user: '/h/.amplifier/mcp.json',
      project: '/p/.amplifier/mcp.json',
      env: '/p/x.json',
    });
    expect(mcpConfigPaths({ cwd: '/p', home: '/h', env: {} }).env).toBeUndefined();
  });
});

describe('loadMcpServers', () => {
  it('layers user < project < AMPLIFIER_MCP_CONFIG < inline by server name, mcpServers and servers', () => {
    const { home, cwd, root } = tree({
      'home/.amplifier/mcp.json': {
        mcpServers: { a: { command: 'user-a' }, b: { command: 'user-b' }, u: { command: 'u' } },
      },
      'project/.amplifier/mcp.json': `\uFEFF${JSON.stringify({ servers: { b: { type: 'stdio', command: 'project-b' }, c: { command: 'project-c' } } })}`,
      'env.json': { mcpServers: { c: { url: 'https://example.com/mcp' } } },
    });
    const loaded = loadMcpServers({
      cwd,
      home,
      env: { AMPLIFIER_MCP_CONFIG: path.join(root, 'env.json') },
      inline: { a: { command: 'inline-a', args: ['x'] } },
    });
    expect(loaded.warnings).toEqual([]);
    expect(loaded.servers.a).toMatchObject({
      type: 'stdio',
      command: 'inline-a',
      args: ['x'],
      enabled: true,
    });
    expect(loaded.servers.b?.command).toBe('project-b');
    expect(loaded.servers.c).toMatchObject({ type: 'http', url: 'https://example.com/mcp' });
    expect(loaded.servers.u?.command).toBe('u');
    expect(loaded.sources).toMatchObject({
      a: 'inline',
      b: path.join(cwd, '.amplifier', 'mcp.json'),
      c: path.join(root, 'env.json'),
      u: path.join(home, '.amplifier', 'mcp.json'),
    });
  });

  it('skips a bad file with a warning and loads the rest', () => {
    const { home, cwd } = tree({
      'home/.amplifier/mcp.json': '{ not json',
      'project/.amplifier/mcp.json': { mcpServers: { ok: { command: 'ok' } } },
    });
    const loaded = loadMcpServers({ cwd, home, env: {} });
    expect(loaded.warnings).toHaveLength(1);
    expect(loaded.warnings[0]).toMatch(/not valid JSON.*skipped/);
    expect(Object.keys(loaded.servers)).toEqual(['ok']);
  });

  it('reads type aliases and infers the type; an unknown type fails only that server', () => {
    const { home, cwd } = tree({});
    const loaded = loadMcpServers({
      cwd,
      home,
      env: {},
      inline: {
        mcpServers: {
          a: { type: 'streamable-http', url: 'https://a.example/mcp' },
          b: { type: 'streamable_http', url: 'https://b.example/mcp' },
          c: { type: 'sse', url: 'https://c.example/sse' },
          d: { url: 'https://d.example/mcp' },
          e: { command: 'e' },
          f: { type: 'websocket', url: 'wss://f' },
        },
      },
    });
    expect(Object.fromEntries(Object.entries(loaded.servers).map(([k, v]) => [k, v.type]))).toEqual({
      a: 'http',
      b: 'http',
      c: 'sse',
      d: 'http',
      e: 'stdio',
    });
    expect(loaded.failed.f).toMatch(/unknown type 'websocket'/);
  });

  it('expands ${VAR}, ${VAR:-default} and ${env:VAR}; an unset one or ${input:} fails that server', () => {
    const { home, cwd } = tree({});
    const loaded = loadMcpServers({
      cwd,
      home,
      env: { TOKEN: 't0k', DIR: '/data' },
      inline: {
        ok: { command: 'srv', args: ['${DIR}', '${MISSING:-fallback}'], env: { KEY: '${env:TOKEN}' } },
        unset: { command: 'srv', env: { KEY: '${NOPE}' } },
        input: { url: 'https://x.example', headers: { Authorization: 'Bearer ${input:token}' } },
      },
    });
    expect(loaded.servers.ok).toMatchObject({ args: ['/data', 'fallback'], env: { KEY: 't0k' } });
    expect(loaded.failed.unset).toMatch(/variable NOPE is not set/);
    expect(loaded.failed.input).toMatch(/input:token/);
  });

  it('takes numbers and booleans in args as their text (YAML `- 8080`), and refuses objects naming the index', () => {
    const { home, cwd } = tree({});
    const loaded = loadMcpServers({
      cwd,
      home,
      env: {},
      inline: {
        ok: { command: 'srv', args: ['--port', 8080, '--ratio', 0.5, '--verbose', true] },
        bad: { command: 'srv', args: ['--opts', { a: 1 }] },
        nul: { command: 'srv', args: [null] },
        notArray: { command: 'srv', args: '--port 8080' },
      },
    });
    expect(loaded.servers.ok?.args).toEqual(['--port', '8080', '--ratio', '0.5', '--verbose', 'true']);
    expect(loaded.failed.bad).toMatch(/'args\[1\]' must be a string \(got object\); quote it/);
    expect(loaded.failed.nul).toMatch(/'args\[0\]' must be a string \(got null\)/);
    expect(loaded.failed.notArray).toMatch(/'args' must be an array of strings/);
  });

  it('reads enabled/disabled, tool filters and their aliases, timeouts', () => {
    const { home, cwd } = tree({});
    const loaded = loadMcpServers({
      cwd,
      home,
      env: {},
      inline: {
        a: { command: 'a', disabled: true },
        b: { command: 'b', enabled: false },
        c: {
          command: 'c',
          allowedToolNames: ['x'],
          blockedToolNames: ['y'],
          startup_timeout_sec: 5,
          tool_timeout_ms: 700,
        },
        d: { command: 'd', disabled_tool: ['z'] },
      },
    });
    expect(loaded.servers.a?.enabled).toBe(false);
    expect(loaded.servers.b?.enabled).toBe(false);
    expect(loaded.servers.c).toMatchObject({
      enabled_tools: ['x'],
      disabled_tools: ['y'],
      startup_timeout_ms: 5000,
      tool_timeout_ms: 700,
    });
    // A misspelt filter would mount tools the user excluded: the server fails instead.
    expect(loaded.failed.d).toMatch(/'disabled_tool' looks like a misspelt 'disabled_tools'/);
  });

  it('refuses headers over plain http to a remote host, and builds a bearer header from an env var', () => {
    const { home, cwd } = tree({});
    const loaded = loadMcpServers({
      cwd,
      home,
      env: { GH_TOKEN: 'abc' },
      inline: {
        remote: { url: 'http://example.com/mcp', headers: { Authorization: 'Bearer x' } },
        local: { url: 'http://127.0.0.1:3001/mcp', bearer_token_env_var: 'GH_TOKEN' },
      },
    });
    expect(loaded.failed.remote).toMatch(/plain http:\/\//);
    expect(loaded.servers.local?.headers).toEqual({ Authorization: 'Bearer abc' });
  });
});

describe('expandVariables', () => {
  it('treats an empty variable as unset', () => {
    expect(() => expandVariables('${E}', { E: '' }, 'x')).toThrow(/E is not set/);
    expect(expandVariables('${E:-d}', { E: '' }, 'x')).toBe('d');
  });
});
