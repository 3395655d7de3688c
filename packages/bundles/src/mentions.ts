/**
 * The system prompt of a bundle (reference A6): its instruction, then
 * `---`, then one `<context_file>` block per distinct file content: the
 * bundle's `context` files first, then the files its `@mentions` name,
 * depth first, at most 3 levels deep. Unresolved mentions are left out.
 * Every file goes through the reference resolver (`references.ts`): a
 * mention resolves against the file that declares it, inside the bundle's
 * roots and the app's (the workspace); a refused mention shows as a
 * `<refused_reference>` marker and a warning, a refused context file is an
 * error.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Bundle } from './load.js';
import type { ContextEntry } from './parse.js';
import {
  BundleReferenceError,
  type ReferenceLimits,
  type ReferenceReader,
  type ResolvedReference,
  referenceReader,
} from './references.js';

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
  /**
   * Folders references may reach besides the bundle's own roots
   * (`bundle.roots`): the workspace. The app chooses them (an untrusted
   * workspace may be left out).
   */
  roots?: readonly string[];
  /**
   * @deprecated The workspace: the same as adding it to `roots`. Plain
   * `@path` mentions start from the file that declares them, never from here.
   */
  cwd?: string;
  /** The user's home: secret paths under it are refused (default: `os.homedir()`). */
  home?: string;
  /**
   * The app's own mention namespaces, used when the bundle has none of that
   * name (the CLI: `user` -> `$AMPLIFIER_HOME`, `project` -> `./.amplifier`);
   * a mention through one stays inside its folder.
   */
  namespaces?: Readonly<Record<string, string>>;
  /** Folders never read, even inside a root (the CLI: `$AMPLIFIER_HOME/projects`, the transcripts). */
  denied?: readonly string[];
  /** Called once per refused mention of a build, with a message naming it, its file and why. */
  onWarning?: (message: string) => void;
  /** Caps per file and for the whole prompt (defaults: `REFERENCE_LIMITS`). */
  limits?: Partial<ReferenceLimits>;
}

/** The reader of one prompt build: the bundle's roots, the app's, its namespaces. */
function readerFor(bundle: Bundle, options: SystemPromptOptions): ReferenceReader {
  return referenceReader({
    roots: [
      ...(bundle.roots ?? [bundle.basePath]),
      ...(options.roots ?? []),
      ...(options.cwd === undefined ? [] : [options.cwd]),
    ],
    home: options.home,
    namespaces: bundle.namespaces,
    ownNamespaces: options.namespaces,
    denied: options.denied,
    limits: options.limits,
  });
}

/** The file an instruction was declared in (its folder is where its plain mentions start). */
function instructionFile(bundle: Bundle): string {
  return bundle.instructionFile ?? path.join(bundle.basePath, 'bundle.md');
}

function resolveContext(reader: ReferenceReader, entry: ContextEntry): ResolvedReference {
  return reader.resolve(entry.ref, entry.declaredIn, { kind: 'context file', label: entry.ref });
}

/** Missing things are left out quietly (reference); anything else refused is reported. */
function isAbsent(error: unknown): boolean {
  return (
    error instanceof BundleReferenceError &&
    (error.reason === 'missing' || error.reason === 'unknown-namespace')
  );
}

function escapeAttribute(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
}

/**
 * The system prompt of a composed bundle, or undefined when it has neither an
 * instruction nor context. Files are read now: call it again to see edits.
 * A refused context file throws its `BundleReferenceError`.
 */
export async function buildSystemPrompt(
  bundle: Bundle,
  options: SystemPromptOptions = {},
): Promise<string | undefined> {
  const reader = readerFor(bundle, options);
  const blocks = new Map<string, { paths: string[]; content: string }>();
  const refused: BundleReferenceError[] = [];
  const seen = new Set<string>();
  const add = (label: string, file: string, content: string): void => {
    const hash = createHash('sha256').update(content).digest('hex');
    const entry = `${label} -> ${file}`;
    const block = blocks.get(hash);
    if (block === undefined) blocks.set(hash, { paths: [entry], content });
    else if (!block.paths.includes(entry)) block.paths.push(entry);
  };
  /** `@ns:x` tries the context key first, then the namespace's folder; `@p` tries p, then p.md. */
  const resolveMention = (mention: string, declaredIn: string): ResolvedReference => {
    const entry = /^[A-Za-z0-9_-]+:/.test(mention)
      ? bundle.context.find((e) => e.key === mention)
      : undefined;
    if (entry !== undefined) {
      try {
        return resolveContext(reader, entry);
      } catch (error) {
        if (!isAbsent(error)) throw error;
      }
    }
    return reader.resolve(`@${mention}`, declaredIn, { suffixes: ['.md'], directories: true });
  };
  const follow = async (text: string, declaredIn: string, depth: number): Promise<void> => {
    if (depth > MENTION_DEPTH) return;
    for (const mention of extractMentions(text)) {
      let target: ResolvedReference;
      let content: string;
      try {
        target = resolveMention(mention, declaredIn);
        if (seen.has(target.file)) continue;
        seen.add(target.file);
        content = reader.read(target);
      } catch (error) {
        if (isAbsent(error)) continue;
        if (!(error instanceof BundleReferenceError)) throw error;
        refused.push(error);
        options.onWarning?.(error.message);
        continue;
      }
      add(`@${mention}`, target.file, content);
      if (target.type === 'file') await follow(content, target.file, depth + 1);
    }
  };

  for (const entry of bundle.context) {
    let target: ResolvedReference;
    try {
      target = resolveContext(reader, entry);
    } catch (error) {
      if (isAbsent(error)) continue;
      throw error;
    }
    if (seen.has(target.file)) continue;
    seen.add(target.file);
    add(entry.key, target.file, reader.read(target));
  }
  if (bundle.instruction !== undefined) await follow(bundle.instruction, instructionFile(bundle), 1);

  const rendered = [...blocks.values()].map(
    (b) => `<context_file paths="${escapeAttribute(b.paths.join(', '))}">\n${b.content}\n</context_file>`,
  );
  for (const error of refused) {
    rendered.push(
      // The reason only: the message (with the app's roots) goes to the warning, the prompt stays the same from any cwd.
      `<refused_reference reference="${escapeAttribute(error.reference)}" declared_in="${escapeAttribute(error.declaredIn)}" reason="${error.reason}" />`,
    );
  }
  const parts = [bundle.instruction, rendered.join('\n\n')].filter(
    (p): p is string => p !== undefined && p !== '',
  );
  return parts.length === 0 ? undefined : parts.join('\n\n---\n\n');
}

/**
 * The bundle's `context` entries whose file is not there (the reference's
 * validator warns; the prompt leaves them out), as warning lines. Refused
 * entries are not listed: building the prompt fails on them, naming why.
 */
export function missingContextFiles(bundle: Bundle): string[] {
  // Every folder is a root here: this asks only whether the file is there.
  const reader = referenceReader({
    roots: [path.parse(bundle.basePath).root],
    namespaces: bundle.namespaces,
  });
  const missing: string[] = [];
  for (const entry of bundle.context) {
    try {
      resolveContext(reader, entry);
    } catch (error) {
      if (!(error instanceof BundleReferenceError)) throw error;
      if (error.reason === 'unknown-namespace') {
        missing.push(
          `context '${entry.key}': the namespace of ${entry.ref} is not loaded (left out of the prompt)`,
        );
      } else if (error.reason === 'missing') {
        missing.push(`context '${entry.key}': no file ${error.target ?? entry.ref} (left out of the prompt)`);
      }
    }
  }
  return missing;
}
