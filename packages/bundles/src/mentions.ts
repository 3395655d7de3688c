/**
 * The system prompt of a bundle (reference A6): its instruction, then
 * `---`, then one `<context_file>` block per distinct file content: the
 * bundle's `context` files first, then the files its `@mentions` name,
 * depth first, at most 3 levels deep. Unresolved mentions are left out.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Bundle } from './load.js';

/** How deep mentions in mentioned files are followed. */
export const MENTION_DEPTH = 3;

const MENTION = /(?<![A-Za-z0-9_.+-])@([A-Za-z0-9_:./~-]+)/g;
const FENCED = /^(```|~~~)[^\n]*\n[\s\S]*?(?:^\1[^\n]*$|(?![\s\S]))/gm;
const INLINE = /`[^`\n]*`/g;

/** The `@mentions` of a text, in order, without duplicates; code (fenced or inline) and e-mail addresses are ignored. */
export function extractMentions(text: string): string[] {
  const prose = text.replace(FENCED, '').replace(INLINE, '');
  const found: string[] = [];
  for (const match of prose.matchAll(MENTION)) {
    const mention = (match[1] ?? '').replace(/[.:]+$/, '');
    if (mention !== '' && !found.includes(mention)) found.push(mention);
  }
  return found;
}

/** Options of `buildSystemPrompt`. */
export interface SystemPromptOptions {
  /** Plain `@path` mentions are relative to it (default: the bundle's base path). */
  cwd?: string;
  /** `@~/x` (default: the user's home folder). */
  home?: string;
  /**
   * The app's own mention namespaces, used when the bundle has none of that
   * name (the CLI: `user` -> `$AMPLIFIER_HOME`, `project` -> `./.amplifier`);
   * a mention into them that climbs out with `..` is left out.
   */
  namespaces?: Readonly<Record<string, string>>;
}

/** A resolved mention or context file. */
interface Target {
  label: string;
  file: string;
}

async function statOf(file: string): Promise<'file' | 'dir' | undefined> {
  try {
    const stat = await fs.stat(file);
    return stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}

function namespaced(ref: string, bundle: Bundle): string | undefined {
  const colon = ref.indexOf(':');
  if (colon <= 0) return undefined;
  const root = bundle.namespaces[ref.slice(0, colon)];
  return root === undefined ? undefined : path.resolve(root, ref.slice(colon + 1));
}

/** Where a mention points: `ns:x` (a context key, then the namespace folder), `~/x`, or a path (`p`, then `p.md`). */
async function resolveMention(
  mention: string,
  bundle: Bundle,
  options: SystemPromptOptions,
): Promise<string | undefined> {
  const candidates: string[] = [];
  if (mention.startsWith('~/')) candidates.push(path.join(options.home ?? os.homedir(), mention.slice(2)));
  else if (/^[A-Za-z0-9_-]+:/.test(mention)) {
    const entry = bundle.context.find((e) => e.key === mention);
    if (entry !== undefined) candidates.push(contextPath(entry.ref, bundle) ?? '');
    candidates.push(namespaced(mention, bundle) ?? appNamespaced(mention, options) ?? '');
  } else {
    const base = path.resolve(options.cwd ?? bundle.basePath, mention);
    candidates.push(base, `${base}.md`);
  }
  for (const candidate of candidates) {
    if (candidate !== '' && (await statOf(candidate)) !== undefined) return candidate;
  }
  return undefined;
}

/** `ns:x` in one of the app's namespaces; never outside its folder. */
function appNamespaced(ref: string, options: SystemPromptOptions): string | undefined {
  const colon = ref.indexOf(':');
  const ns = ref.slice(0, colon);
  const root =
    options.namespaces !== undefined && Object.hasOwn(options.namespaces, ns)
      ? options.namespaces[ns]
      : undefined;
  if (root === undefined) return undefined;
  const rel = ref.slice(colon + 1);
  if (rel.split(/[\\/]/).includes('..')) return undefined;
  return path.resolve(root, rel);
}

function contextPath(ref: string, bundle: Bundle): string | undefined {
  return path.isAbsolute(ref) ? ref : namespaced(ref, bundle);
}

async function readTarget(file: string): Promise<string | undefined> {
  const kind = await statOf(file);
  if (kind === 'file') return fs.readFile(file, 'utf8').catch(() => undefined);
  if (kind !== 'dir') return undefined;
  const entries = await fs.readdir(file, { withFileTypes: true }).catch(() => []);
  const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
  return `Directory listing of ${file}:\n${names.map((n) => `- ${n}`).join('\n')}`;
}

function escapeAttribute(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
}

/**
 * The system prompt of a composed bundle, or undefined when it has neither an
 * instruction nor context. Files are read now: call it again to see edits.
 */
export async function buildSystemPrompt(
  bundle: Bundle,
  options: SystemPromptOptions = {},
): Promise<string | undefined> {
  const blocks = new Map<string, { paths: string[]; content: string }>();
  const seen = new Set<string>();
  const add = (target: Target, content: string): void => {
    const hash = createHash('sha256').update(content).digest('hex');
    const label = `${target.label} -> ${target.file}`;
    const block = blocks.get(hash);
    if (block === undefined) blocks.set(hash, { paths: [label], content });
    else if (!block.paths.includes(label)) block.paths.push(label);
  };
  const follow = async (text: string, depth: number): Promise<void> => {
    if (depth > MENTION_DEPTH) return;
    for (const mention of extractMentions(text)) {
      const file = await resolveMention(mention, bundle, options);
      if (file === undefined || seen.has(file)) continue;
      seen.add(file);
      const content = await readTarget(file);
      if (content === undefined) continue;
      add({ label: `@${mention}`, file }, content);
      await follow(content, depth + 1);
    }
  };

  for (const entry of bundle.context) {
    const file = contextPath(entry.ref, bundle);
    if (file === undefined || seen.has(file)) continue;
    const content = await readTarget(file);
    if (content === undefined) continue;
    seen.add(file);
    add({ label: entry.key, file }, content);
  }
  if (bundle.instruction !== undefined) await follow(bundle.instruction, 1);

  const rendered = [...blocks.values()].map(
    (b) => `<context_file paths="${escapeAttribute(b.paths.join(', '))}">\n${b.content}\n</context_file>`,
  );
  const parts = [bundle.instruction, rendered.join('\n\n')].filter(
    (p): p is string => p !== undefined && p !== '',
  );
  return parts.length === 0 ? undefined : parts.join('\n\n---\n\n');
}

/**
 * The bundle's `context` entries whose file is not there (the reference's
 * validator warns; the prompt leaves them out), as warning lines.
 */
export function missingContextFiles(bundle: Bundle): string[] {
  const missing: string[] = [];
  for (const entry of bundle.context) {
    const file = contextPath(entry.ref, bundle);
    if (file === undefined) {
      missing.push(
        `context '${entry.key}': the namespace of ${entry.ref} is not loaded (left out of the prompt)`,
      );
    } else if (!existsSync(file)) {
      missing.push(`context '${entry.key}': no file ${file} (left out of the prompt)`);
    }
  }
  return missing;
}
