#!/usr/bin/env node
/**
 * The basic app: compose an Amplifier session from a mount plan through the
 * public API of @amplifier/core and run one scripted turn that uses a tool from
 * every tool module (glob + read_file, bash, web_fetch, an AgentPM tool) with the
 * event log on.
 *
 *   node main.mjs [--plan plan.yaml] [--prompt "..."]
 *
 * Prints one line per tool result (`tool <name>: ok - <summary>`), the final
 * answer (`answer: ...`) and where the event log went (`log: ...`) on stdout;
 * problems go to stderr. Exit code 0 only when every module loaded and every
 * tool call succeeded. The modules are found among the packages installed next
 * to this file (baseDir), as in any npm project.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AmplifierSession, errorMessage, events } from '@amplifier/core';
import { loadPlan } from './plan-file.mjs';

const appDir = dirname(fileURLToPath(import.meta.url));

const STATUS_PAGE = `<!doctype html>
<html><head><title>Status</title><style>h1 { color: green }</style></head>
<body><nav>Home | Status</nav><main><h1>Status: all systems go</h1>
<p>Served by the basic app on 127.0.0.1.</p></main></body></html>`;

/** A summary of one tool result in a line: what a person (or a test) wants to see. */
function summarize(tool, result, workDir) {
  const out = result.output;
  const shown = (file) => relative(workDir, String(file)) || '.';
  if (!result.success) return `error - ${result.error?.message ?? JSON.stringify(out)}`;
  const firstLine = (text) =>
    String(text ?? '')
      .split('\n')
      .find((line) => line.trim() !== '') ?? '';
  let text;
  if (tool === 'read_file') {
    const line = firstLine(out.content).replace(/^\s*\d+\t/, '');
    text = `${out.lines_read} of ${out.total_lines} lines of ${shown(out.file_path)}: ${line}`;
  } else if (tool === 'glob') {
    text = `${out.count} matches: ${out.matches.map((m) => shown(m.path)).join(', ')}`;
  } else if (tool === 'bash') {
    text = `exit ${out.returncode}: ${firstLine(out.stdout)}`;
  } else if (tool === 'web_fetch') {
    text = `HTTP ${out.status} ${out.content_type}: ${firstLine(out.content)}`;
  } else if (tool === 'word_count') {
    text = `${out.words} words, ${out.chars} characters`;
  } else {
    text = JSON.stringify(out);
  }
  return `ok - ${text.length > 160 ? `${text.slice(0, 157)}...` : text}`;
}

/** Start the local page web_fetch reads; resolves with its URL and a close function. */
async function startStatusServer() {
  const server = createServer((req, res) => {
    if (req.url === '/status.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(STATUS_PAGE);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', done);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/status.html`,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

/** Find `<home>/projects/<project>/sessions/<id>/events.jsonl` and count its records. */
async function readEventLog(home, sessionId) {
  for (const project of await readdir(join(home, 'projects')).catch(() => [])) {
    const file = join(home, 'projects', project, 'sessions', sessionId, 'events.jsonl');
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const records = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    return { file, records };
  }
  return undefined;
}

async function main() {
  const { values } = parseArgs({
    options: {
      plan: { type: 'string', default: join(appDir, 'plan.yaml') },
      prompt: { type: 'string', default: 'What is in the workspace, and is the status page up?' },
    },
  });

  // A scratch workspace for the tools, the status page, and a private AMPLIFIER_HOME
  // for the event log unless the caller chose one.
  const workDir = await mkdtemp(join(tmpdir(), 'amplifier-basic-app-'));
  await writeFile(join(workDir, 'notes.txt'), 'The answer is 42.\nAsk again tomorrow.\n');
  await writeFile(join(workDir, 'todo.txt'), '- water the plants\n');
  const ownHome = process.env.AMPLIFIER_HOME ? undefined : await mkdtemp(join(tmpdir(), 'amplifier-home-'));
  if (ownHome) process.env.AMPLIFIER_HOME = ownHome;
  const server = await startStatusServer();

  try {
    return await runTurn(values, { workDir, statusUrl: server.url, ownHome: ownHome !== undefined });
  } finally {
    await server.close();
    await rm(workDir, { recursive: true, force: true });
    if (ownHome) await rm(ownHome, { recursive: true, force: true });
  }
}

/** Compose the session, run the turn, print the results and the log summary; resolves with the exit code. */
async function runTurn(values, { workDir, statusUrl, ownHome }) {
  const plan = await loadPlan(resolve(values.plan), {
    ...process.env,
    STATUS_URL: statusUrl,
    APP_DIR: appDir,
  });
  // Validates the plan, then loads and mounts every module it names.
  const session = await AmplifierSession.create(plan, { baseDir: appDir, workingDir: workDir });
  let failed = false;
  try {
    for (const failure of session.failures) {
      console.error(
        `module ${failure.module} (${failure.section}) did not load: ${errorMessage(failure.error)}`,
      );
      failed = true;
    }
    if (failed) return 1;

    const results = new Map();
    session.coordinator.hooks.register(
      events.TOOL_POST,
      (_event, data) => {
        results.set(data.tool_call_id, { tool: data.tool_name, result: data.result });
      },
      { name: 'basic-app:results' },
    );
    session.coordinator.hooks.register(
      events.TOOL_ERROR,
      (_event, data) => {
        const message = data.error?.msg ?? 'failed';
        results.set(data.tool_call_id, {
          tool: data.tool_name,
          result: { success: false, error: { message } },
        });
      },
      { name: 'basic-app:errors' },
    );

    const answer = await session.execute(values.prompt, { signal: AbortSignal.timeout(60_000) });

    // One line per tool call, in the order the model asked for them (from the transcript).
    const transcript = await session.coordinator.get('context').getMessages();
    for (const message of transcript) {
      for (const call of message.role === 'assistant' ? (message.tool_calls ?? []) : []) {
        const entry = results.get(call.id);
        if (!entry) {
          console.log(`tool ${call.tool}: error - no result was recorded`);
          failed = true;
          continue;
        }
        console.log(`tool ${entry.tool}: ${summarize(entry.tool, entry.result, workDir)}`);
        if (!entry.result.success) failed = true;
      }
    }
    console.log(`answer: ${answer}`);
  } finally {
    // Emits session:end and writes every accepted event to the log before it returns.
    await session.cleanup();
  }

  // A plan without hooks-logging (examples/plans/minimal.yaml) writes no event log: nothing to report.
  const logging = (plan.hooks ?? []).some(
    (hook) => (typeof hook === 'string' ? hook : hook?.module) === 'hooks-logging',
  );
  const log = logging ? await readEventLog(process.env.AMPLIFIER_HOME, session.sessionId) : undefined;
  if (!logging) {
    console.log('log: none (the plan mounts no hooks-logging)');
  } else if (log) {
    const toolPosts = log.records.filter((record) => record.event === events.TOOL_POST).length;
    const note = ownHome
      ? ' (a temporary AMPLIFIER_HOME, removed now; set AMPLIFIER_HOME to keep the log)'
      : '';
    console.log(`log: ${log.records.length} events (${toolPosts} tool:post) in ${log.file}${note}`);
  } else {
    console.error(`no event log for session ${session.sessionId} under ${process.env.AMPLIFIER_HOME}`);
    failed = true;
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(errorMessage(error));
    process.exitCode = 1;
  },
);
