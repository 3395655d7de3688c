/**
 * The masks follow a secret to every path its filesystem is mounted at: a
 * bind of a parent folder or a volume mounted twice shows the same files
 * at a second path, where a mask at the first one does not reach.
 */
import { describe, expect, it } from 'vitest';
import { aliasesOf, type MountEntry, mountTable } from './masks.js';

const TABLE: MountEntry[] = [
  { device: '8:1', root: '/', point: '/' },
  { device: '8:2', root: '/', point: '/home' },
  // /home/alice bound at /srv/alice; all of /home's filesystem again at /mnt/homes
  { device: '8:2', root: '/alice', point: '/srv/alice' },
  { device: '8:2', root: '/', point: '/mnt/homes' },
  // one file of it bound alone; another filesystem's folder of the same name
  { device: '8:2', root: '/alice/.ssh/id_rsa', point: '/opt/key' },
  { device: '8:3', root: '/alice', point: '/backup/alice' },
  // a folder of /home's filesystem that does not hold the secret
  { device: '8:2', root: '/bob', point: '/srv/bob' },
];

describe('aliasesOf', () => {
  it('finds a secret through a bind of its parent, a second mount of its filesystem and a bind of the file itself', () => {
    expect(aliasesOf('/home/alice/.ssh', TABLE).sort()).toEqual(['/mnt/homes/alice/.ssh', '/srv/alice/.ssh']);
    expect(aliasesOf('/home/alice/.ssh/id_rsa', TABLE).sort()).toEqual([
      '/mnt/homes/alice/.ssh/id_rsa',
      '/opt/key',
      '/srv/alice/.ssh/id_rsa',
    ]);
  });

  it('ignores other filesystems, mounts of folders that do not hold it, and finds nothing for an unmounted path', () => {
    expect(aliasesOf('/home/bob/.aws', TABLE).sort()).toEqual(['/mnt/homes/bob/.aws', '/srv/bob/.aws']);
    expect(aliasesOf('/etc/shadow', TABLE)).toEqual([]);
    expect(aliasesOf('/etc/shadow', [])).toEqual([]);
  });

  it('reads the running system: every entry has a device, an absolute root and mount point', () => {
    const table = mountTable();
    if (process.platform !== 'linux') {
      expect(table).toEqual([]);
      return;
    }
    expect(table.length).toBeGreaterThan(0);
    for (const mount of table) {
      expect(mount.device).toMatch(/^\d+:\d+$/);
      expect(mount.root.startsWith('/')).toBe(true);
      expect(mount.point.startsWith('/')).toBe(true);
    }
    expect(mountTable('/nonexistent/mountinfo')).toEqual([]);
  });
});
