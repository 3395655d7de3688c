/**
 * Where secrets live on disk: one list for every door that could read them.
 * The OS sandbox hides these paths from confined commands, and the resolver of
 * config file references (bundle @mentions, includes, context files) refuses
 * them even inside an allowed root. Part of the trust model (docs/trust.md):
 * the secrets kit owns it, and the process and bundles kits share it.
 */
import path from 'node:path';

/**
 * Paths under a home directory that hold credentials (relative to the home).
 * Directories hide everything below them; the others are single files.
 */
export const SECRET_HOME_PATHS: readonly string[] = Object.freeze([
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/gh',
  '.kube',
  '.docker',
  '.gnupg',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  '.cargo/credentials.toml',
  '.claude',
  '.amplifier/credentials',
  '.amplifier/trust.json',
]);

/**
 * Whether a file name alone marks a secret, wherever it is: `.env` files,
 * private keys and certificates' keys (`*.pem`, `*.key`, `*.p12`, `*.pfx`), ssh
 * identities (`id_rsa`, `id_ed25519`, ... but not their `.pub` halves).
 */
export function isSecretFileName(name: string): boolean {
  const lower = name.toLowerCase();
  if (lower === '.env' || lower.startsWith('.env.'))
    return !lower.endsWith('.example') && !lower.endsWith('.sample');
  if (/\.(pem|key|p12|pfx|jks|keystore)$/.test(lower)) return true;
  if (/^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$/.test(lower)) return true;
  return false;
}

/**
 * Whether an absolute path (already resolved through symlinks) is or lies
 * under one of `SECRET_HOME_PATHS` of `home`, or has a secret file name.
 */
export function isSecretPath(absolute: string, home: string): boolean {
  const target = path.resolve(absolute);
  for (const entry of SECRET_HOME_PATHS) {
    const secret = path.join(home, entry);
    if (target === secret || target.startsWith(`${secret}${path.sep}`)) return true;
  }
  return isSecretFileName(path.basename(target));
}
