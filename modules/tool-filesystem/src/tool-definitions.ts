/**
 * The five tools as the model sees them: name, description and input schema.
 * Plain data, loaded at mount; the code behind each tool (read.ts, write.ts,
 * edit.ts, glob.ts, grep.ts) loads with the tool's first call (tools.ts).
 */
import type { JSONSchema } from '@amplifier/core';
import type { GrepMode } from './grep-worker.js';

/** Lines `read_file` returns when no `limit` is given. */
export const DEFAULT_LINE_LIMIT = 2000;
/** Longer lines are cut (by `read_file` and `grep`). */
export const MAX_LINE_CHARS = 2000;

/** `grep`'s output modes. */
export const GREP_MODES: readonly GrepMode[] = ['files_with_matches', 'content', 'count'];

/** What the model sees of a tool. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JSONSchema;
}

export const READ_FILE: ToolDefinition = {
  name: 'read_file',
  description: `Read a file or list a directory.
- file_path: absolute path, a path relative to the working directory, or an @mention (@bundle:path).
- Returns up to ${DEFAULT_LINE_LIMIT} lines from the start by default; use offset (1-based line number) and limit to page through long files.
- Lines are numbered like \`cat -n\`: spaces + line number + tab, then the line text. The prefix is not part of the file.
- Lines longer than ${MAX_LINE_CHARS} characters are cut.
- A directory path returns its entries (DIR/FILE/LINK), directories first.
- Binary files are reported, not dumped. Reading an empty file returns a warning instead of content.
- Read several files in parallel when you need them; read a file before you edit it.`,
  inputSchema: {
    type: 'object',
    properties: {
      file_path: { type: 'string', description: 'Absolute path or @mention to the file/directory' },
      offset: { type: 'integer', description: 'Line number to start from (1-indexed)' },
      limit: { type: 'integer', description: 'Number of lines to read' },
    },
    required: ['file_path'],
  },
};

export const WRITE_FILE: ToolDefinition = {
  name: 'write_file',
  description: `Write a file (create it or replace its whole content).
- file_path: absolute path or a path relative to the working directory; missing parent directories are created.
- content: the complete new content (UTF-8 text).
- Prefer edit_file to change part of an existing file; read a file before replacing it.
- Only paths inside the allowed write paths can be written. The write is atomic: readers see the old or the new content, never a mix.`,
  inputSchema: {
    type: 'object',
    properties: {
      file_path: { type: 'string', description: 'Absolute path to the file to write' },
      content: { type: 'string', description: 'Content to write to the file' },
    },
    required: ['file_path', 'content'],
  },
};

export const EDIT_FILE: ToolDefinition = {
  name: 'edit_file',
  description: `Replace text in a file.
- old_string must match the file exactly (indentation, whitespace and line breaks included) and be unique, unless replace_all is true (then every occurrence is replaced).
- Copy old_string from read_file output without the line-number prefix (spaces + line number + tab).
- Read the file before editing it; if it changed on disk since, read it again.
- Use the smallest old_string that is unique; add surrounding lines to make it unique.`,
  inputSchema: {
    type: 'object',
    properties: {
      file_path: { type: 'string', description: 'Absolute path to the file to edit' },
      old_string: { type: 'string', description: 'The exact text to replace' },
      new_string: {
        type: 'string',
        description: 'The text to replace it with (must be different from old_string)',
      },
      replace_all: {
        type: 'boolean',
        default: false,
        description: 'Replace every occurrence of old_string',
      },
    },
    required: ['file_path', 'old_string', 'new_string'],
  },
};

export const GLOB: ToolDefinition = {
  name: 'glob',
  description: `Find files and directories by glob pattern, newest first.
- pattern: a glob relative to path, e.g. "**/*.ts", "src/**/test_*.py", "*.{json,yaml}".
- path: the directory to search (default: the working directory).
- type: "file", "dir" or "any" (default "any").
- exclude: extra glob patterns to leave out; include_ignored: also search node_modules, .git, dist, build, .venv and the like (skipped by default).
- Symbolic links are not listed or followed. Results are capped; results_capped tells you to narrow the search.`,
  inputSchema: {
    type: 'object',
    properties: {
      pattern: { type: 'string', description: 'Glob pattern, e.g. "**/*.py"' },
      path: { type: 'string', description: 'Base directory to search (default: the working directory)' },
      type: { type: 'string', enum: ['file', 'dir', 'any'], description: 'What to match (default: any)' },
      exclude: { type: 'array', items: { type: 'string' }, description: 'Glob patterns to leave out' },
      include_ignored: {
        type: 'boolean',
        description: 'Also search node_modules, .git, dist, build, .venv and other excluded directories',
      },
    },
    required: ['pattern'],
  },
};

export const GREP: ToolDefinition = {
  name: 'grep',
  description: `Search file contents with a regular expression (JavaScript syntax), like ripgrep.
- pattern: the regex, e.g. "function\\s+\\w+", "TODO|FIXME"; a leading (?i) makes it case-insensitive.
- path: file or directory to search (default: the working directory).
- output_mode: "files_with_matches" (default: the paths of matching files), "content" (matching lines), "count" (matching lines per file).
- -i: ignore case. -n: line numbers (content mode, default true). -A/-B/-C: lines of context after/before/around each match (content mode).
- glob: only files matching this glob ("*.ts", "src/**/*.{js,jsx}"). type: only files of this type (ts, js, py, rust, go, java, ...).
- multiline: let a match span lines (. matches newlines too).
- head_limit / offset: page through results (defaults: 200 files, 500 lines, 200 counts; 0 means no limit).
- Skips binary files, files over the size limit, symlinks and node_modules, .git, dist, build, .venv and the like unless include_ignored is true.`,
  inputSchema: {
    type: 'object',
    properties: {
      pattern: { type: 'string', description: 'Regular expression to search for (JavaScript syntax)' },
      path: { type: 'string', description: 'File or directory to search (default: the working directory)' },
      output_mode: {
        type: 'string',
        enum: [...GREP_MODES],
        description: 'files_with_matches (default), content or count',
      },
      '-i': { type: 'boolean', description: 'Case-insensitive search' },
      '-n': { type: 'boolean', description: 'Show line numbers (content mode; default true)' },
      '-A': {
        type: 'integer',
        minimum: 0,
        description: 'Lines of context after each match (content mode)',
      },
      '-B': {
        type: 'integer',
        minimum: 0,
        description: 'Lines of context before each match (content mode)',
      },
      '-C': {
        type: 'integer',
        minimum: 0,
        description: 'Lines of context around each match (content mode)',
      },
      glob: {
        type: 'string',
        description: 'Only search files matching this glob, e.g. "*.ts" or "src/**/*.py"',
      },
      type: {
        type: 'string',
        description: 'Only search files of this type: ts, js, py, rust, go, java, ...',
      },
      multiline: { type: 'boolean', description: 'Let a match span lines (. also matches newlines)' },
      head_limit: {
        type: 'integer',
        minimum: 0,
        description: 'Return at most this many results (0: no limit)',
      },
      offset: { type: 'integer', minimum: 0, description: 'Skip this many results first' },
      include_ignored: { type: 'boolean', description: 'Also search node_modules, .git, dist, build, ...' },
    },
    required: ['pattern'],
  },
};
