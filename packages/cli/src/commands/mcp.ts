/**
 * `amplifier mcp serve|list|add|remove|test`: serving tools over MCP and the MCP server configs.
 */
import { type Command, Option } from 'commander';
import { PROVIDERS } from '../plan.js';
import { resolveCwd } from '../run.js';
import { action, display } from './action.js';
import { byteSize, type Common, collect, common, port, seconds } from './options.js';

type ServeFlags = Common & {
  plan?: string;
  bundle?: string;
  source?: string[];
  agent?: boolean;
  provider?: string;
  model?: string;
  tools?: string[];
  includeMcp?: boolean;
  http?: boolean;
  host?: string;
  port?: number;
  token?: string;
  unix?: string;
  allowOrigin?: string[];
  allowHost?: string[];
  maxLineBytes?: number;
};

type McpFileFlags = Common & { project?: boolean };

/** Adds `mcp` and its subcommands. */
export function defineMcpCommands(program: Command): void {
  const mcp = program
    .command('mcp')
    .description(
      "the Model Context Protocol: serve this project's tools, manage the MCP servers sessions use",
    );
  common(
    mcp
      .command('serve')
      .description(
        "serve the plan's tools (or the agent, --agent) to MCP hosts such as Claude Code and Cursor, over stdio or --http",
      ),
  )
    .option('--plan <file>', 'a mount plan (default: the built-in one)')
    .option('-B, --bundle <file|name>', 'a bundle instead of a plan')
    .option('--source <url=folder>', 'use a local copy for a bundle source (repeatable)', collect, undefined)
    .option('--agent', 'serve the whole agent as one tool, amplifier_agent {prompt, session_id?}')
    .addOption(
      new Option('-p, --provider <name>', 'model provider (--agent)').choices(Object.keys(PROVIDERS)),
    )
    .option('-m, --model <model>', 'model id for the provider (--agent)')
    .option('--tools <names>', 'serve only these tools (comma-separated, repeatable)', collect, undefined)
    .option('--include-mcp', "also serve the plan's mcp_* tools (off by default: proxy loops)")
    .option('--http', 'Streamable HTTP on /mcp instead of stdio')
    .option('--host <address>', 'address to bind with --http (default 127.0.0.1)')
    .option('--port <n>', 'port with --http (default 8808; 0 picks a free one)', port)
    .option(
      '--token <token>',
      'bearer token clients must send (--http; default $AMPLIFIER_MCP_TOKEN, else a new random one per start)',
    )
    .option('--unix <path>', 'with --http: listen on this unix socket (mode 0600, no token) instead of TCP')
    .option(
      '--allow-origin <origin>',
      'a browser Origin allowed besides loopback ones (repeatable)',
      collect,
      undefined,
    )
    .option(
      '--allow-host <host>',
      "a Host header allowed besides this server's address (repeatable)",
      collect,
      undefined,
    )
    .option(
      '--max-line-bytes <size>',
      'stdio: the largest request line (default 4MiB, or $AMPLIFIER_MCP_MAX_LINE_BYTES); a longer one is discarded and answered with an error',
      byteSize,
    )
    .action(
      action(async (flags: ServeFlags) => {
        const { serveCommand } = await import('../mcp-serve.js');
        return serveCommand({
          plan: flags.plan,
          bundle: flags.bundle,
          sources: flags.source,
          cwd: flags.cwd,
          verbose: flags.verbose ?? false,
          agent: flags.agent ?? false,
          provider: flags.provider,
          model: flags.model,
          tools: flags.tools,
          includeMcp: flags.includeMcp ?? false,
          http: flags.http ?? false,
          host: flags.host,
          port: flags.port,
          token: flags.token,
          unix: flags.unix,
          allowOrigins: flags.allowOrigin,
          allowHosts: flags.allowHost,
          maxLineBytes: flags.maxLineBytes,
        });
      }),
    );
  common(
    mcp
      .command('list')
      .description('the MCP servers of the user and project configs, with where each comes from'),
  ).action(
    action(async (flags: Common) => {
      const { listServers } = await import('../mcp-config.js');
      const { readOnlyTrust } = await import('../workspace-trust.js');
      const cwd = resolveCwd(flags.cwd);
      const out = display(flags);
      return listServers({ cwd, json: flags.json ?? false, ...readOnlyTrust(cwd, out) }, out, process.stdout);
    }),
  );
  common(
    mcp
      .command('add')
      .description('add a server: amplifier mcp add <name> -- <command> [args...], or --url <url>')
      .argument('<name>', 'the server name (tools are mounted as mcp_<name>_<tool>)')
      .argument('[command...]', 'after --: the program that starts a stdio server, and its arguments'),
  )
    .option('--project', 'write ./.amplifier/mcp.json instead of ~/.amplifier/mcp.json')
    .option('--url <url>', 'a Streamable HTTP (or --type sse) server instead of a command')
    .addOption(
      new Option('--type <type>', 'transport (default: stdio for a command, http for --url)').choices([
        'stdio',
        'http',
        'sse',
      ]),
    )
    .option('--header <name:value>', 'an HTTP header for --url (repeatable)', collect, undefined)
    .option(
      '-e, --env <KEY=value>',
      'an environment variable for the command (repeatable)',
      collect,
      undefined,
    )
    .option('-f, --force', 'replace a server of the same name')
    .action(
      action(
        async (
          name: string,
          command: string[],
          flags: McpFileFlags & {
            url?: string;
            type?: string;
            header?: string[];
            env?: string[];
            force?: boolean;
          },
        ) => {
          const { addServer } = await import('../mcp-config.js');
          return addServer(
            name,
            command,
            {
              cwd: resolveCwd(flags.cwd),
              project: flags.project ?? false,
              force: flags.force ?? false,
              url: flags.url,
              type: flags.type,
              headers: flags.header,
              env: flags.env,
            },
            process.stdout,
          );
        },
      ),
    );
  common(
    mcp
      .command('remove')
      .description('remove a server from the user config (or the project config, --project)')
      .argument('<name>', 'the server name'),
  )
    .option('--project', 'edit ./.amplifier/mcp.json instead of ~/.amplifier/mcp.json')
    .action(
      action(async (name: string, flags: McpFileFlags) => {
        const { removeServer } = await import('../mcp-config.js');
        return removeServer(
          name,
          { cwd: resolveCwd(flags.cwd), project: flags.project ?? false },
          display(flags),
          process.stdout,
        );
      }),
    );
  common(
    mcp
      .command('test')
      .description('start a configured server, list its tools (calling none) and stop it')
      .argument('<name>', 'the server name'),
  )
    .option('--timeout <seconds>', 'how long the server may take to start (default 30)', seconds)
    .action(
      action(async (name: string, flags: Common & { timeout?: number }) => {
        const { testServer } = await import('../mcp-config.js');
        const { readOnlyTrust } = await import('../workspace-trust.js');
        const cwd = resolveCwd(flags.cwd);
        const out = display(flags);
        return testServer(
          name,
          {
            cwd,
            json: flags.json ?? false,
            ...(flags.timeout !== undefined && { timeoutMs: Math.round(flags.timeout * 1000) }),
            ...readOnlyTrust(cwd, out),
          },
          out,
          process.stdout,
        );
      }),
    );
}
