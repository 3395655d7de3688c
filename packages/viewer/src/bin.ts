#!/usr/bin/env node
/** `amplifier-view [--port <n>] [--no-open] [--home <dir>] [--token <t>]`: the viewer on its own (`amplifier view` is the same). */
import { parseArgs } from 'node:util';
import { parsePort, serveSessions } from './serve.js';

const USAGE = `Usage: amplifier-view [--port <n>] [--no-open] [--home <dir>] [--token <token>]
  --port <n>    the port on 127.0.0.1 (default: any free port)
  --no-open     do not open a browser; the URL is printed
  --home <dir>  where the sessions are (default: AMPLIFIER_HOME, else ~/.amplifier)
  --token <t>   the credential (default: AMPLIFIER_VIEW_TOKEN, else a new random one per start)`;

try {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      'no-open': { type: 'boolean', default: false },
      home: { type: 'string' },
      token: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
  } else {
    const { done } = await serveSessions({
      ...(values.port !== undefined && { port: parsePort(values.port) }),
      ...(values.home !== undefined && { home: values.home }),
      ...(values.token !== undefined && { token: values.token }),
      open: !values['no-open'],
    });
    await done;
  }
} catch (error) {
  process.stderr.write(`Error: ${(error as Error).message}\n${USAGE}\n`);
  process.exitCode = 2;
}
