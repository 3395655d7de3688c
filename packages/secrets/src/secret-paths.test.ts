import { describe, expect, it } from 'vitest';
import { isSecretFileName, isSecretPath, SECRET_HOME_PATHS } from './secret-paths.js';

describe('secret paths', () => {
  it('marks the home credentials and everything under a secret folder', () => {
    expect(isSecretPath('/home/u/.ssh', '/home/u')).toBe(true);
    expect(isSecretPath('/home/u/.ssh/id_rsa.pub', '/home/u')).toBe(true);
    expect(isSecretPath('/home/u/.aws/credentials', '/home/u')).toBe(true);
    expect(isSecretPath('/home/u/.netrc', '/home/u')).toBe(true);
    expect(isSecretPath('/home/u/.amplifier/trust.json', '/home/u')).toBe(true);
  });

  it('does not mark neighbours that only share a prefix', () => {
    expect(isSecretPath('/home/u/.sshx/notes.md', '/home/u')).toBe(false);
    expect(isSecretPath('/home/u/project/README.md', '/home/u')).toBe(false);
    expect(isSecretPath('/home/other/.ssh/config', '/home/u')).toBe(false);
  });

  it('marks secret file names anywhere, but not their public or example halves', () => {
    for (const name of ['.env', '.env.local', 'server.pem', 'tls.key', 'id_ed25519', 'id_rsa', 'cert.p12']) {
      expect(isSecretFileName(name), name).toBe(true);
    }
    for (const name of ['env.ts', '.env.example', 'id_rsa.pub', 'keys.md', 'monkey.ts', 'README.md']) {
      expect(isSecretFileName(name), name).toBe(false);
    }
    expect(isSecretPath('/srv/app/.env.production', '/home/u')).toBe(true);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(SECRET_HOME_PATHS)).toBe(true);
  });
});
