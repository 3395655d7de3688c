/**
 * The sandbox holds whoever runs the kernel: these attacks run as root here
 * (CI's root job) and as an unprivileged user (`scripts/sandbox-as-user.sh`).
 * Each runs cold and in a pre-started spare.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { sandboxGate } from '@amplifier/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from './__fixtures__/children.js';
import { runInGroup } from './run.js';
import { resolveRunAs } from './run-as.js';
import { bwrapArguments, CONFINED_UNSET, Sandbox, sandboxSupport } from './sandbox.js';
import { SANDBOX_DEFAULTS, type SandboxPolicy } from './sandbox-policy.js';
import { SECCOMP_FD, unixSocketFilter } from './seccomp.js';

const gate = sandboxGate(sandboxSupport());
const asRoot = process.geteuid?.() === 0;
// Not in /tmp, which the sandbox's private /tmp hides anyway: in a folder the sandbox sees.
const root = fs.existsSync('/var/tmp') ? fs.mkdtempSync('/var/tmp/amplifier-confine-') : makeTempDir();
// Searchable by others: the run_as user reaches the workspaces in it.
fs.chmodSync(root, 0o755);
let serial = 0;
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A workspace, a fake home with secrets, and an outside folder, each fresh. */
function setup(): { workspace: string; home: string; outside: string } {
  const base = path.join(root, `case-${++serial}`);
  const where = {
    workspace: path.join(base, 'workspace'),
    home: path.join(base, 'home'),
    outside: path.join(base, 'outside'),
  };
  for (const dir of [where.workspace, path.join(where.home, '.ssh'), where.outside]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  fs.writeFileSync(path.join(where.home, '.ssh', 'id_rsa'), 'SSH-KEY-MARKER', { mode: 0o600 });
  fs.writeFileSync(path.join(where.outside, 'file'), 'OUTSIDE-ORIGINAL');
  return where;
}

let start: 'cold' | 'pre-started' = 'cold';

/** Run `script` with bash in a `required` sandbox (cold, or in a spare when `start` says so). */
async function run(
  script: string,
  where: { workspace: string; home: string },
  policy: Partial<SandboxPolicy> = {},
  env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' },
) {
  const sandbox = new Sandbox(
    { ...SANDBOX_DEFAULTS, mode: 'required', ...policy },
    { module: 'test', home: where.home },
  );
  const options = {
    cwd: where.workspace,
    env,
    timeoutMs: 60_000,
    graceMs: 100,
    capture: { headBytes: 100_000, tailBytes: 0 },
    sandbox: { sandbox, workspace: where.workspace },
  };
  let command = script;
  if (start === 'pre-started') {
    await runInGroup('true', [], options);
    expect(await sandbox.spareReady()).toBe(true);
    command = `test -d /tmp/.amplifier-call || { echo NOT-PRE-STARTED; exit 97; }\n${script}`;
  }
  try {
    const result = await runInGroup('bash', ['-c', command], options);
    const out = result.stdout.head.toString();
    expect(out).not.toContain('NOT-PRE-STARTED');
    return { code: result.exitCode, out, err: result.stderr.head.toString() };
  } finally {
    sandbox.cleanup();
  }
}

/** A unix socket server answering `HELLO-<name>` on `address` (a path, or `\0name` for an abstract one). */
async function socketServer(address: string): Promise<net.Server> {
  const server = net.createServer((socket) =>
    socket.end(`HELLO-${path.basename(address.replace('\0', ''))}\n`),
  );
  await new Promise<void>((resolve) => server.listen(address, resolve));
  if (!address.startsWith('\0')) fs.chmodSync(address, 0o666);
  return server;
}

/** A node one-liner connecting to each address and printing what happened. */
function connectAll(addresses: readonly string[]): string {
  const js = `for (const a of ${JSON.stringify(addresses)}) { const s = require('net').connect(a); s.on('data', (d) => process.stdout.write(d)); s.on('error', (e) => console.log('ERR ' + e.code + ' ' + JSON.stringify(a))); }`;
  return `${JSON.stringify(process.execPath)} -e ${shellQuote(js)}`;
}

/** Perl making unix sockets of every type (and a socketpair, which stays allowed). */
const PERL_SOCKETS = `perl -MSocket -e 'for my $t (SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET) { if (socket(my $s, PF_UNIX, $t, 0)) { print "made-$t\\n" } else { print "refused-$t $!\\n" } } socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, 0) ? print "pair-ok\\n" : print "pair-refused $!\\n";'`;

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

it('the confinement suite runs wherever AMPLIFIER_REQUIRE_SANDBOX=1 asks for it', () => {
  expect(gate.required).toBeUndefined();
});

describe.skipIf(!gate.run).each(['cold', 'pre-started'] as const)(
  gate.title(`Confinement (bubblewrap, %s, as ${asRoot ? 'root' : 'a user'})`),
  (how) => {
    beforeAll(() => {
      start = how;
    });
    afterAll(() => {
      start = 'cold';
    });

    it('has no capability in any set, no new privileges, and the seccomp filter (network off); network on: still no capability', async () => {
      const where = setup();
      const status = `grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status`;
      const off = await run(status, where);
      for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) {
        expect(off.out).toMatch(new RegExp(`^${set}:\\s+0{16}$`, 'm'));
      }
      expect(off.out).toMatch(/^NoNewPrivs:\s+1$/m);
      expect(off.out).toMatch(/^Seccomp:\s+2$/m);
      // A child of a child inherits all of it.
      const nested = await run(
        `sh -c 'bash -c "grep -E ^Cap /proc/self/status; grep ^Seccomp: /proc/self/status"'`,
        where,
      );
      expect(nested.out).toMatch(/^CapEff:\s+0{16}$/m);
      expect(nested.out).toMatch(/^CapBnd:\s+0{16}$/m);
      expect(nested.out).toMatch(/^Seccomp:\s+2$/m);
      const on = await run(status, where, { network: true });
      expect(on.out).toMatch(/^CapEff:\s+0{16}$/m);
      expect(on.out).toMatch(/^CapBnd:\s+0{16}$/m);
      expect(on.out).toMatch(/^NoNewPrivs:\s+1$/m);
    });

    it('every mount, remount and umount fails: /, a read-only bind, a hidden folder, /dev, the /tmp cap, a new tmpfs, a bind', async () => {
      const where = setup();
      const attacks = [
        'mount -o remount,rw /',
        'mount -o remount,rw,bind /',
        `mount -o bind,remount,rw ${where.outside}`,
        `mount --bind ${where.outside} ${where.workspace}`,
        `umount ${where.home}/.ssh`,
        `umount -l ${where.home}/.ssh`,
        'umount -l /dev',
        'umount /proc',
        'mount -o remount,size=64m /tmp',
        'mount -t tmpfs none /mnt',
        'mount -t proc proc /mnt',
      ];
      const script = attacks.map((a, i) => `${a} 2>/dev/null && echo "HELD-${i}"`).join('\n');
      const r = await run(
        `${script}\necho pwned > ${where.outside}/file 2>/dev/null && echo WROTE\ncat ${where.home}/.ssh/id_rsa 2>/dev/null\nls /dev | wc -l\necho done`,
        where,
      );
      expect(r.out).toContain('done');
      expect(r.out).not.toMatch(/HELD-\d+|WROTE|SSH-KEY-MARKER/);
      // /dev is still bubblewrap's few nodes, not the host's.
      expect(Number(r.out.split('\n').at(-3))).toBeLessThan(30);
      expect(fs.readFileSync(path.join(where.outside, 'file'), 'utf8')).toBe('OUTSIDE-ORIGINAL');
    });

    it('the /tmp cap holds after a remount attempt: writing past it gives ENOSPC', async () => {
      const where = setup();
      const r = await run(
        'mount -o remount,size=64m /tmp 2>/dev/null; mount -o remount,size=64m,rw /tmp 2>/dev/null; head -c 3000000 /dev/zero > /tmp/fill; echo "rc=$?"',
        where,
        { tmp_size_mb: 1 },
      );
      expect(r.out).toContain('rc=1');
      expect(r.err).toMatch(/No space left on device/);
    });

    it('cannot make a new user (or any) namespace to regain capabilities', async () => {
      const where = setup();
      const attempts = [
        'unshare -U true',
        'unshare -Ur true',
        'unshare -m true',
        'unshare -n true',
        'unshare -Urm true',
      ];
      const r = await run(
        `${attempts.map((a, i) => `${a} 2>/dev/null && echo "MADE-${i}"`).join('\n')}\necho done`,
        where,
      );
      expect(r.out).toContain('done');
      expect(r.out).not.toMatch(/MADE-\d/);
      // Through a nested bwrap too, if it is there.
      const nested = await run(
        'bwrap --ro-bind / / --unshare-user true 2>/dev/null && echo NESTED; echo done',
        where,
      );
      expect(nested.out).toBe('done\n');
    });

    it('root-only secrets are unreadable: /etc/shadow, /etc/gshadow, sudoers, ssh host keys (as root: masked; as a user: refused)', async () => {
      const where = setup();
      const r = await run(
        'for f in /etc/shadow /etc/gshadow /etc/sudoers /etc/ssh/ssh_host_*_key; do [ -e "$f" ] || continue; if [ -s "$f" ] && head -c1 "$f" >/dev/null 2>&1; then echo "READ $f"; fi; done; ls -A /etc/sudoers.d 2>/dev/null | grep -v README; echo done',
        where,
      );
      expect(r.out).toBe('done\n');
      if (asRoot) expect(fs.readFileSync('/etc/shadow', 'utf8').length).toBeGreaterThan(0);
    });

    it("another home's 0600 secrets: as root masked (whoever owns them), as a user no more readable than outside", async () => {
      const where = setup();
      if (!asRoot) {
        // A user's sandbox grants nothing the host refuses: root's home is as closed inside as out.
        const closed = ['/root', '/root/.ssh', '/etc/shadow'].filter((p) => {
          try {
            fs.accessSync(p, fs.constants.R_OK);
            return false;
          } catch {
            return fs.existsSync(p) || p === '/root/.ssh';
          }
        });
        const r = await run(
          `${closed
            .map(
              (p) =>
                `if { [ -d ${p} ] && ls -A ${p}; } >/dev/null 2>&1 || { [ -f ${p} ] && cat ${p}; } >/dev/null 2>&1; then echo "OPENED ${p}"; fi`,
            )
            .join('\n')}\necho done`,
          where,
        );
        expect(r.out).toBe('done\n');
        return;
      }
      const other = fs.mkdtempSync('/home/amplifier-confine-');
      try {
        fs.mkdirSync(path.join(other, '.ssh'), { mode: 0o700 });
        fs.mkdirSync(path.join(other, '.aws'), { mode: 0o700 });
        fs.writeFileSync(path.join(other, '.ssh', 'id_ed25519'), 'OTHER-HOME-KEY', { mode: 0o600 });
        fs.writeFileSync(path.join(other, '.aws', 'credentials'), 'OTHER-HOME-AWS', { mode: 0o600 });
        fs.writeFileSync(path.join(other, '.netrc'), 'OTHER-HOME-NETRC', { mode: 0o600 });
        fs.writeFileSync(path.join(other, 'notes'), 'OTHER-HOME-NOTES', { mode: 0o644 });
        const r = await run(
          `cat ${other}/.ssh/id_ed25519 ${other}/.aws/credentials ${other}/.netrc ${other}/notes 2>&1; umount ${other}/.ssh 2>&1; cat ${other}/.ssh/* 2>&1`,
          where,
        );
        expect(r.out).not.toMatch(/OTHER-HOME-(KEY|AWS|NETRC)/);
        // Only the secrets are masked: the rest of the home reads as before.
        expect(r.out).toContain('OTHER-HOME-NOTES');
      } finally {
        fs.rmSync(other, { recursive: true, force: true });
      }
    });

    it("run_as: as root, bubblewrap and the command run as that user, so root's 0600 files outside every mask are refused; as a user it changes nothing", async () => {
      const where = setup();
      fs.chmodSync(where.workspace, 0o777);
      const secret = path.join(where.outside, 'root-only');
      fs.writeFileSync(secret, 'ROOT-ONLY-MARKER', { mode: 0o600 });
      const script = `id -u; cat ${secret} 2>&1; echo made > mine && echo wrote; grep -E '^(CapEff|Seccomp):' /proc/self/status`;
      const as = await run(script, where, { run_as: 'nobody' });
      expect(as.out).toContain('wrote');
      expect(as.out).toMatch(/^CapEff:\s+0{16}$/m);
      expect(as.out).toMatch(/^Seccomp:\s+2$/m);
      if (asRoot) {
        expect(as.out.split('\n')[0]).toBe(String(resolveRunAs('nobody').uid));
        expect(as.out).not.toContain('ROOT-ONLY-MARKER');
        expect(as.out).toContain('Permission denied');
        expect(fs.statSync(path.join(where.workspace, 'mine')).uid).toBe(resolveRunAs('nobody').uid);
        // Without run_as the same file is read: masks name secrets, they cannot know every file.
        const plain = await run(script, where);
        expect(plain.out).toContain('ROOT-ONLY-MARKER');
      } else {
        // Not root: ignored, the command runs as this user (who owns the secret: it reads it).
        expect(as.out.split('\n')[0]).toBe(String(process.getuid?.()));
        expect(as.out).toContain('ROOT-ONLY-MARKER');
      }
    });

    it('with the network off no unix socket can be made: a 0666 one in the workspace, one outside, an abstract one, every socket type; socketpair still works', async () => {
      const where = setup();
      const id = `${process.pid}-${serial}`;
      const inWorkspace = path.join(where.workspace, 'docker.sock');
      const outside = path.join(where.outside, 'agent.sock');
      const abstract = `\0amplifier-confine-${id}`;
      const servers = await Promise.all([inWorkspace, outside, abstract].map(socketServer));
      try {
        const probe = `${connectAll([inWorkspace, outside, abstract, 'docker.sock'])}\n${PERL_SOCKETS}`;
        const off = await run(probe, where);
        expect(off.out).not.toContain('HELLO-');
        expect(off.out.match(/ERR EPERM/g)).toHaveLength(4);
        expect(off.out).not.toMatch(/made-\d/);
        expect(off.out.match(/refused-\d Operation not permitted/g)).toHaveLength(3);
        expect(off.out).toContain('pair-ok');
        // The test can fail: with the network on, the same probe reaches them.
        const on = await run(connectAll([inWorkspace, abstract]), where, { network: true });
        expect(on.out).toContain('HELLO-docker.sock');
        expect(on.out).toContain(`HELLO-amplifier-confine-${id}`);
      } finally {
        for (const server of servers) server.close();
      }
    });

    it('the kernel keyring is out of reach (network off and on): the session keyring it inherits can be neither read nor written', async () => {
      const where = setup();
      const calls =
        process.arch === 'arm64'
          ? { add: 217, request: 218, keyctl: 219 }
          : { add: 248, request: 249, keyctl: 250 };
      const reads = [
        `syscall(${calls.keyctl}, 0, -3, 0)`, // keyctl(GET_KEYRING_ID, @s)
        `syscall(${calls.keyctl}, 11, -3, $b, 256)`, // keyctl(READ, @s): the ids of its keys
        `syscall(${calls.keyctl}, 11, -4, $b, 256)`, // keyctl(READ, @u)
      ];
      const writes = [
        `syscall(${calls.add}, $t, $d, $v, 1, -3)`, // add_key(user, @s): plant a key for the host
        `syscall(${calls.request}, $t, $d, 0, 0)`,
        `syscall(${calls.keyctl}, 1, 0)`, // keyctl(JOIN_SESSION_KEYRING)
      ];
      const perl = (list: string[]): string =>
        `perl -e 'my $b = "\\0" x 256; my ($t, $d, $v) = ("user", "amplifier-planted", "x"); my @r = (${list.join(', ')}); print join(" ", map { $_ < 0 ? "refused" : "allowed" } @r), "\\n"'`;
      // The test can fail: unconfined, the reads reach the keyring (the writes are not tried on the host),
      // unless the host itself refuses keyrings (a container's seccomp profile): then so must the sandbox.
      const host = spawnSync('bash', ['-c', perl(reads)], { encoding: 'utf8' });
      expect(host.stdout.trim()).toMatch(/^(allowed allowed allowed|refused refused refused)$/);
      const probe = perl([...reads, ...writes]);
      for (const network of [false, true]) {
        const r = await run(probe, where, { network });
        expect(r.out.trim(), `network ${network}`).toBe('refused refused refused refused refused refused');
      }
    });

    it('a masked secret stays masked where a bind of its parent shows it again (as root: a real second mount; as a user: no mount can be made, the table test covers it)', async () => {
      const where = setup();
      const alias = path.join(path.dirname(where.home), 'alias-of-home');
      fs.mkdirSync(alias);
      // A bind of the home elsewhere, as containers and devcontainers do with volumes.
      const bound = asRoot && spawnSync('mount', ['--bind', where.home, alias]).status === 0;
      try {
        if (!bound) {
          expect(asRoot).toBe(false);
          return;
        }
        // The test can fail: unconfined, the second path shows the key.
        expect(fs.readFileSync(path.join(alias, '.ssh', 'id_rsa'), 'utf8')).toBe('SSH-KEY-MARKER');
        const r = await run(`cat ${where.home}/.ssh/id_rsa ${alias}/.ssh/id_rsa; ls -A ${alias}/.ssh`, where);
        expect(r.out).not.toContain('SSH-KEY-MARKER');
        expect(r.err).toContain(`${alias}/.ssh/id_rsa: No such file`);
      } finally {
        if (bound) spawnSync('umount', [alias]);
      }
    });

    it("git's hooks and config and .amplifier/ stay read-only in the writable workspace (they would run code outside later); the rest of .git stays writable", async () => {
      const where = setup();
      const ws = where.workspace;
      fs.mkdirSync(path.join(ws, '.git', 'objects'), { recursive: true });
      fs.writeFileSync(path.join(ws, '.git', 'config'), '[core]\n\tbare = false\n');
      fs.mkdirSync(path.join(ws, '.amplifier', 'agents'), { recursive: true });
      fs.writeFileSync(path.join(ws, '.amplifier', 'settings.yaml'), 'ORIGINAL\n');
      const attempts = [
        'echo evil > .git/hooks/pre-commit',
        'ln -s /bin/sh .git/hooks/post-checkout',
        'echo "[core] fsmonitor = evil" >> .git/config',
        'mv .git/config .git/config.old',
        'mv .git/hooks .git/hooks.old',
        'rm -rf .git/hooks',
        'echo evil > .amplifier/agents/evil.md',
        'echo evil >> .amplifier/settings.yaml',
        'mv .amplifier .amplifier.old',
      ];
      const script = attempts
        .map((a) => `if ( ${a} ) 2>/dev/null; then echo "ALLOWED: ${a.replaceAll('"', '')}"; fi`)
        .join('\n');
      const r = await run(
        `${script}\necho obj > .git/objects/new && echo OBJECTS-WRITABLE; echo work > file && echo WORK-WRITABLE`,
        where,
        {
          writable: [],
        },
      );
      expect(r.out).not.toContain('ALLOWED');
      expect(r.out).toContain('OBJECTS-WRITABLE');
      expect(r.out).toContain('WORK-WRITABLE');
      expect(fs.readFileSync(path.join(ws, '.git', 'config'), 'utf8')).toBe('[core]\n\tbare = false\n');
      expect(fs.readdirSync(path.join(ws, '.git', 'hooks'))).toEqual([]);
      expect(fs.readdirSync(path.join(ws, '.amplifier', 'agents'))).toEqual([]);
      // The test can fail: without the protection the same script writes them (checked unconfined).
      const free = spawnSync('bash', ['-c', 'echo x > .git/hooks/probe && echo ALLOWED'], {
        cwd: ws,
        encoding: 'utf8',
      });
      expect(free.stdout).toContain('ALLOWED');
      fs.rmSync(path.join(ws, '.git', 'hooks', 'probe'));
    });

    it('a linked worktree (.git is a file): the file, its git folder and the common one keep hooks and config read-only', async () => {
      const where = setup();
      // The main repository sits in another writable folder; the workspace is its linked worktree.
      const main = path.join(where.outside, 'main.git');
      const linked = path.join(main, 'worktrees', 'wt');
      fs.mkdirSync(linked, { recursive: true });
      fs.writeFileSync(path.join(main, 'config'), '[core]\n');
      fs.writeFileSync(path.join(linked, 'commondir'), '../..\n');
      fs.writeFileSync(path.join(where.workspace, '.git'), `gitdir: ${linked}\n`);
      const attempts = [
        'echo "gitdir: /tmp" > .git',
        `echo evil > ${main}/hooks/post-checkout`,
        `echo "[core] hooksPath = /tmp" >> ${main}/config`,
        `echo evil > ${linked}/hooks/post-checkout`,
      ];
      const script = attempts
        .map((a) => `if ( ${a} ) 2>/dev/null; then echo "ALLOWED: ${a.replaceAll('"', '')}"; fi`)
        .join('\n');
      const r = await run(`${script}\necho x > ${main}/HEAD && echo COMMON-WRITABLE`, where, {
        writable: [where.outside],
      });
      expect(r.out).not.toContain('ALLOWED');
      expect(r.out).toContain('COMMON-WRITABLE');
      expect(fs.readFileSync(path.join(where.workspace, '.git'), 'utf8')).toBe(`gitdir: ${linked}\n`);
      expect(fs.readFileSync(path.join(main, 'config'), 'utf8')).toBe('[core]\n');
      expect(fs.readdirSync(path.join(main, 'hooks'))).toEqual([]);
    });

    it('descriptors the kernel process inherited without close-on-exec do not reach the command (a directory one would open files behind every mask)', () => {
      const where = setup();
      const kit = new URL('../dist/index.js', import.meta.url).href;
      const probe =
        'for fd in 4 9 200; do cat /proc/self/fd/$fd/.ssh/id_rsa; done; echo written >&9; echo DONE';
      // A host started with open descriptors (a shell's exec 200<dir, a CI runner's pipes): one cold call, one in a spare.
      const script = `
        const kit = await import(${JSON.stringify(kit)});
        const sandbox = new kit.Sandbox({ ...kit.SANDBOX_DEFAULTS, mode: 'required' }, { module: 'test', home: ${JSON.stringify(where.home)} });
        const options = { cwd: ${JSON.stringify(where.workspace)}, env: { PATH: process.env.PATH }, timeoutMs: 60000, graceMs: 100,
          capture: { headBytes: 10000, tailBytes: 0 }, sandbox: { sandbox, workspace: ${JSON.stringify(where.workspace)} } };
        const cold = await kit.runInGroup('bash', ['-c', ${JSON.stringify(probe)}], options);
        await sandbox.spareReady();
        const warm = await kit.runInGroup('bash', ['-c', 'test -d /tmp/.amplifier-call && echo PRE-STARTED; ' + ${JSON.stringify(probe)}], options);
        sandbox.cleanup();
        console.log(cold.stdout.head.toString() + warm.stdout.head.toString());
      `;
      const log = path.join(where.outside, 'log');
      fs.writeFileSync(log, '');
      const host = (program: string) =>
        spawnSync('bash', ['-c', `exec 4<"$HOMEDIR" 200<"$HOMEDIR" 9>>"$LOG"; ${program}`], {
          env: { ...process.env, HOMEDIR: where.home, LOG: log },
          encoding: 'utf8',
        });
      // The test can fail: unconfined, the descriptors open the key and write the log.
      const free = host(probe);
      expect(free.stdout).toContain('SSH-KEY-MARKER');
      fs.writeFileSync(log, '');
      const r = host(`exec ${JSON.stringify(process.execPath)} --input-type=module -e ${shellQuote(script)}`);
      expect(r.stdout.match(/DONE/g), r.stderr).toHaveLength(2);
      expect(r.stdout).toContain('PRE-STARTED');
      expect(r.stdout).not.toContain('SSH-KEY-MARKER');
      expect(fs.readFileSync(log, 'utf8')).toBe('');
    });

    it('the host socket folders are empty: /run, /var/run, $XDG_RUNTIME_DIR and the ssh-agent folder (both network settings)', async () => {
      const where = setup();
      const runtime = path.join(where.outside, 'runtime');
      const agentDir = path.join(where.outside, 'ssh-agent-dir');
      fs.mkdirSync(runtime);
      fs.mkdirSync(agentDir);
      fs.writeFileSync(path.join(runtime, 'bus'), 'RUNTIME-MARKER');
      fs.writeFileSync(path.join(agentDir, 'agent.1'), 'AGENT-MARKER');
      const saved = {
        XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR,
        SSH_AUTH_SOCK: process.env.SSH_AUTH_SOCK,
      };
      process.env.XDG_RUNTIME_DIR = runtime;
      process.env.SSH_AUTH_SOCK = path.join(agentDir, 'agent.1');
      try {
        const script = `ls -A /run /var/run ${runtime} ${agentDir} 2>&1 | grep -v ':$' | grep -v '^$'; cat ${runtime}/bus ${agentDir}/agent.1 2>/dev/null; echo done`;
        for (const network of [false, true]) {
          const r = await run(script, where, { network });
          expect(r.out, `network: ${network}`).toBe('done\n');
        }
      } finally {
        for (const [name, value] of Object.entries(saved)) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
      }
    });

    it('SSH_AUTH_SOCK, DOCKER_HOST, DBUS_SESSION_BUS_ADDRESS and kin are unset in the command', async () => {
      const where = setup();
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', KEPT: 'yes' };
      for (const name of CONFINED_UNSET) env[name] = `/run/${name.toLowerCase()}`;
      const r = await run('env', where, {}, env);
      expect(r.out).toContain('KEPT=yes');
      for (const name of ['SSH_AUTH_SOCK', 'DOCKER_HOST', 'DBUS_SESSION_BUS_ADDRESS', ...CONFINED_UNSET]) {
        expect(r.out).not.toContain(`${name}=`);
      }
    });

    it('keeps /etc/resolv.conf readable with the network on', async () => {
      const where = setup();
      const host = fs.readFileSync('/etc/resolv.conf', 'utf8');
      const r = await run('cat /etc/resolv.conf', where, { network: true });
      expect(r.out).toBe(host);
    });
  },
);

describe.skipIf(!gate.run)(gate.title('Confinement (bubblewrap): fails closed'), () => {
  it('bubblewrap refuses to run the command when the seccomp filter is missing or empty', () => {
    const where = setup();
    const marker = path.join(where.workspace, 'ran');
    const args = bwrapArguments('touch', [marker], {
      cwd: where.workspace,
      workspace: where.workspace,
      policy: { ...SANDBOX_DEFAULTS, mode: 'required' },
      home: where.home,
      disableUserns: sandboxSupport().disableUserns !== false,
    });
    expect(args).toContain('--seccomp');
    const bwrap = sandboxSupport().bwrap!;
    const noFd = spawnSync(bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    expect(noFd.status).not.toBe(0);
    const devNull = fs.openSync('/dev/null', 'r');
    try {
      const stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'ignore', 'pipe'];
      while (stdio.length < SECCOMP_FD) stdio.push('ignore');
      stdio.push(devNull);
      const empty = spawnSync(bwrap, args, { stdio, encoding: 'utf8' });
      expect(empty.status).not.toBe(0);
      expect(empty.stderr).toMatch(/seccomp/i);
    } finally {
      fs.closeSync(devNull);
    }
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe('the support probe runs the privilege and filter set-up of a confined command', () => {
  /** A fake bwrap: records its arguments and stdin, then runs `body`. */
  function fakeBwrap(body: string): { bwrap: string; args: () => string[]; stdin: () => Buffer } {
    const dir = makeTempDir();
    const bwrap = path.join(dir, 'bwrap');
    fs.writeFileSync(
      bwrap,
      `#!/bin/sh\nprintf '%s\\n' "$@" >> '${dir}/args'\ncat > '${dir}/stdin'\n${body}\n`,
      { mode: 0o755 },
    );
    return {
      bwrap,
      args: () => fs.readFileSync(path.join(dir, 'args'), 'utf8').trim().split('\n'),
      stdin: () => fs.readFileSync(path.join(dir, 'stdin')),
    };
  }

  it('asks for a user namespace without capabilities, no nested one, and the seccomp filter (given on stdin)', () => {
    const fake = fakeBwrap('exit 0');
    expect(sandboxSupport(fake.bwrap)).toEqual({ available: true, bwrap: fake.bwrap, disableUserns: true });
    const args = fake.args();
    expect(args.join(' ')).toContain('--unshare-user --cap-drop ALL --disable-userns');
    expect(args.join(' ')).toContain('--seccomp 0');
    expect(fake.stdin().equals(unixSocketFilter()!)).toBe(true);
  });

  it('a bwrap older than 0.8.0 (no --disable-userns) still works, without it', () => {
    const fake = fakeBwrap(
      `case " $* " in *" --disable-userns "*) echo 'bwrap: Unknown option --disable-userns' >&2; exit 1;; esac; exit 0`,
    );
    const support = sandboxSupport(fake.bwrap);
    expect(support).toMatchObject({ available: true, disableUserns: false });
    const where = setup();
    const setupArgs = bwrapArguments('true', [], {
      cwd: where.workspace,
      workspace: where.workspace,
      policy: { ...SANDBOX_DEFAULTS },
      home: where.home,
      disableUserns: support.disableUserns!,
    });
    expect(setupArgs).not.toContain('--disable-userns');
    expect(setupArgs.join(' ')).toContain('--unshare-user --cap-drop ALL');
  });

  it("a kernel or container that forbids user namespaces: 'auto' says so once and runs unconfined, 'required' refuses with the fix", () => {
    const fake = fakeBwrap(
      `echo 'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2; exit 1`,
    );
    const notices: string[] = [];
    const auto = new Sandbox(
      { ...SANDBOX_DEFAULTS },
      { module: 'mod-userns', bwrap: fake.bwrap, notice: (m) => notices.push(m) },
    );
    expect(auto.active).toBe(false);
    expect(auto.describe()).toMatch(/^auto \(unavailable: bwrap cannot create a user namespace/);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /WITHOUT an OS sandbox \(bwrap cannot create a user namespace.*unprivileged_userns_clone/,
    );
    expect(notices[0]).not.toMatch(/apt-get install/);
    expect(
      () =>
        new Sandbox({ ...SANDBOX_DEFAULTS, mode: 'required' }, { module: 'mod-userns', bwrap: fake.bwrap }),
    ).toThrow(
      /'required' but unavailable: bwrap cannot create a user namespace.*apparmor_restrict_unprivileged_userns=0.*No permissions to create new namespace/,
    );
  });

  it("a kernel without seccomp filters: 'required' refuses, naming CONFIG_SECCOMP_FILTER", () => {
    const fake = fakeBwrap(
      `echo 'bwrap: Unable to set up system call filtering as requested: prctl(PR_SET_SECCOMP) reported EINVAL.' >&2; exit 1`,
    );
    expect(
      () =>
        new Sandbox({ ...SANDBOX_DEFAULTS, mode: 'required' }, { module: 'mod-seccomp', bwrap: fake.bwrap }),
    ).toThrow(/cannot install the seccomp filter here \(the kernel needs CONFIG_SECCOMP_FILTER\)/);
  });
});

describe('sandbox_policy.run_as names an unprivileged user', () => {
  it('resolves a name or a uid from /etc/passwd; refuses root and unknown users with the fix', () => {
    const dir = makeTempDir();
    const passwd = path.join(dir, 'passwd');
    fs.writeFileSync(
      passwd,
      'root:x:0:0:root:/root:/bin/bash\nsbx:x:990:985::/nonexistent:/usr/sbin/nologin\n',
    );
    expect(resolveRunAs('sbx', passwd)).toEqual({ name: 'sbx', uid: 990, gid: 985 });
    expect(resolveRunAs(990, passwd)).toEqual({ name: 'sbx', uid: 990, gid: 985 });
    expect(() => resolveRunAs('root', passwd)).toThrow(/'root' is root \(uid 0\); name an unprivileged user/);
    expect(() => resolveRunAs('nosuch', passwd)).toThrow(
      /no user 'nosuch' in .*useradd --system --user-group nosuch/,
    );
    expect(() => resolveRunAs(4242, passwd)).toThrow(/no user '4242'/);
    expect(() => resolveRunAs('sbx', path.join(dir, 'missing'))).toThrow(/no user 'sbx'/);
  });

  it('an unknown run_as user refuses the mount as root (ignored as a user); with sandbox: off it is not looked up', () => {
    const make = () =>
      new Sandbox(
        { ...SANDBOX_DEFAULTS, mode: 'auto', run_as: 'amplifier-no-such-user' },
        { module: 'm', notice: () => {} },
      );
    if (asRoot) expect(make).toThrow(/sandbox_policy.run_as: no user 'amplifier-no-such-user'/);
    else expect(make().policy.run_as).toBe('amplifier-no-such-user');
    expect(
      new Sandbox({ ...SANDBOX_DEFAULTS, mode: 'off', run_as: 'amplifier-no-such-user' }, { module: 'm' })
        .active,
    ).toBe(false);
  });
});
