/**
 * The safety profiles of the reference (strict, standard, permissive,
 * unrestricted) and what a policy names: plain data, read when the config is
 * parsed. The validator that applies them (safety.ts) and the effect analysis
 * behind it are loaded by the first command, not at mount.
 */
import type { EffectKind } from './effects.js';

export type SafetyProfileName = 'strict' | 'standard' | 'permissive' | 'unrestricted';

/**
 * `command`: at command position (prefix match); `substring`: anywhere, any
 * case; `regex`: a search; `effect`: what the command line would do
 * (`effect` names it), however it is spelled.
 */
export type BlockPatternType = 'command' | 'substring' | 'regex' | 'effect';

export interface BlockPattern {
  pattern: string;
  type: BlockPatternType;
  reason: string;
  /** For `type: 'effect'`: the effect refused. */
  effect?: EffectKind;
}

export interface SafetyProfile {
  name: SafetyProfileName;
  blocks: readonly BlockPattern[];
  /** Whether `allowed_commands` and `safety_overrides.allow` may allow a command. */
  allowOverrides: boolean;
}

/** What the validator needs from the tool's config. */
export interface SafetyPolicy {
  safety_profile: SafetyProfileName;
  allowed_commands?: readonly string[];
  denied_commands?: readonly string[];
  safety_overrides?: { allow?: readonly string[]; block?: readonly string[] } | null;
}

export const PROFILE_NAMES: readonly SafetyProfileName[] = [
  'strict',
  'standard',
  'permissive',
  'unrestricted',
];

const ROOT_DELETE = 'Prevents root filesystem deletion';
const HOME_DELETE = 'Prevents home directory deletion';

/** The effect patterns: what the reference's `rm -rf /`, `rm -rf ~`, `chmod 777 /` and `chown -R /` meant. */
export const EFFECT_PATTERNS: Readonly<Record<EffectKind, string>> = Object.freeze({
  'delete-root': 'recursive delete of /, a top-level or system directory',
  'delete-home': 'recursive delete of a home directory',
  'device-write': 'write to a disk or memory device',
  'chmod-root': 'permission change of /, a top-level, system or home directory',
  'chown-root': 'owner change of /, a top-level, system or home directory',
  'remote-code': 'code downloaded from the network run by an interpreter',
  'environ-read': "read of another process's environment (/proc/<pid>/environ)",
});

function effectBlock(effect: EffectKind, reason: string): BlockPattern {
  return { pattern: EFFECT_PATTERNS[effect], type: 'effect', reason, effect };
}

function sharedBlocks(mode: string): BlockPattern[] {
  return [
    effectBlock('delete-root', ROOT_DELETE),
    effectBlock('delete-home', HOME_DELETE),
    { pattern: 'sudo', type: 'command', reason: `Privilege escalation not allowed in ${mode} mode` },
    { pattern: 'su -', type: 'command', reason: 'User switching not allowed' },
    { pattern: 'dd if=/dev/zero', type: 'substring', reason: 'Dangerous disk overwrite' },
    { pattern: 'dd if=/dev/random', type: 'substring', reason: 'Dangerous disk overwrite' },
    effectBlock('device-write', 'Dangerous disk overwrite'),
    { pattern: 'mkfs', type: 'command', reason: 'Filesystem creation not allowed' },
    { pattern: '>\\s*/dev/(?!null)', type: 'regex', reason: 'Writing to devices not allowed' },
    { pattern: 'passwd', type: 'command', reason: 'Password changes not allowed' },
    effectBlock('chmod-root', 'Dangerous root permissions'),
    effectBlock('chown-root', 'Recursive ownership of root not allowed'),
    effectBlock('remote-code', 'Running code downloaded from the network is not allowed'),
    effectBlock('environ-read', "Reading another process's environment is not allowed"),
    { pattern: ':(){ :|:& };:', type: 'substring', reason: 'Fork bomb' },
  ];
}

/**
 * The four profiles of the reference, with its patterns, order and reasons;
 * the reference's `rm -rf /`, `rm -rf ~`, `chmod 777 /` and `chown -R /`
 * text patterns are effect patterns here, and two effects are added
 * (device writes, code from the network) where the reference's `dd` and
 * `>/dev/` patterns stood for them.
 */
export const SAFETY_PROFILES: Readonly<Record<SafetyProfileName, SafetyProfile>> = Object.freeze({
  strict: { name: 'strict', blocks: sharedBlocks('strict'), allowOverrides: false },
  standard: { name: 'standard', blocks: sharedBlocks('standard'), allowOverrides: true },
  permissive: {
    name: 'permissive',
    blocks: sharedBlocks('permissive').filter(
      (b) => b.effect === 'delete-root' || b.pattern === ':(){ :|:& };:',
    ),
    allowOverrides: true,
  },
  unrestricted: { name: 'unrestricted', blocks: [], allowOverrides: true },
});

/** The profile of that name; anything else throws the reference's message. */
export function resolveProfile(name: string): SafetyProfile {
  if (!Object.hasOwn(SAFETY_PROFILES, name)) {
    throw new Error(`Unknown profile '${name}'. Valid profiles: ${PROFILE_NAMES.join(', ')}`);
  }
  return SAFETY_PROFILES[name as SafetyProfileName];
}
