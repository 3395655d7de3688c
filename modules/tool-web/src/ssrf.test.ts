import { describe, expect, it } from 'vitest';
import {
  addressRefusal,
  BlockedError,
  checkUrl,
  connectRefusal,
  createPolicy,
  matchesDomain,
  WEB_ERRORS,
} from './ssrf.js';

const open = createPolicy({});

function refusal(url: string, policy = open): string | null {
  try {
    checkUrl(url, policy);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(BlockedError);
    // An AmplifierError of tool-web's table; the message is the reason behind `blocked: `.
    expect(WEB_ERRORS.is(error, 'WEB_URL_BLOCKED')).toBe(true);
    expect((error as BlockedError).message).toBe(`blocked: ${(error as BlockedError).reason}`);
    return (error as BlockedError).reason;
  }
}

describe('address classification (security WEB-05)', () => {
  const nonPublic = [
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '127.0.0.1',
    '127.0.0.2',
    '169.254.169.254',
    '100.64.0.1',
    '100.100.100.200',
    '192.0.0.8',
    '198.18.0.1',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '0.0.0.0',
    '::',
    '::1',
    'fd00:ec2::254',
    'fc00::1',
    'fe80::1',
    'ff02::1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::7f00:1',
    '2002:a9fe:a9fe::',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::127.0.0.2',
    '::7f00:2',
    '2001:db8::1',
  ];
  it.each(nonPublic)('WEB-05: %s is refused', (address) => {
    expect(addressRefusal(address)).not.toBeNull();
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700::1111', '93.184.216.34'])(
    'WEB-05: positive control %s is public',
    (address) => {
      expect(addressRefusal(address)).toBeNull();
    },
  );

  it('names the metadata service and the range in the reason', () => {
    expect(addressRefusal('169.254.169.254')).toMatch(/link-local.*cloud metadata/);
    expect(addressRefusal('100.64.0.1')).toMatch(/carrier-grade NAT/);
    expect(addressRefusal('64:ff9b::1.2.3.4')).toMatch(/NAT64/);
  });
});

describe('checkUrl: schemes and credentials (security WEB-01)', () => {
  it.each([
    'file:///etc/passwd',
    'data:text/plain,SECRET',
    'javascript:alert(1)',
    'ftp://127.0.0.1/',
    'gopher://example.com/',
    'blob:https://example.com/uuid',
    'ws://example.com/',
    'about:blank',
  ])('WEB-01: %s is refused', (url) => {
    expect(refusal(url)).toMatch(/only http and https/);
  });

  it('WEB-01: http/https are accepted in any case and with surrounding spaces; no scheme is refused', () => {
    expect(refusal('HtTp://example.com/')).toBeNull();
    expect(refusal('  https://example.com/x  ')).toBeNull();
    expect(refusal('example.com:80/x')).not.toBeNull();
    expect(refusal('127.0.0.1:8080/x')).not.toBeNull();
  });

  it('refuses URLs with credentials', () => {
    expect(refusal('https://user:pass@example.com/')).toMatch(/credentials/);
    expect(refusal('https://user@example.com/')).toMatch(/credentials/);
  });

  it('WEB-17: parser confusion is decided on the parsed URL', () => {
    // userinfo containing '@': the host is evil.test, and the credentials are refused
    expect(refusal('http://user:pass@127.0.0.1:80@evil.test/')).toMatch(/credentials/);
    // a fragment holding '@': the host is evil.test, the request would go there (a name, checked at connect)
    expect(checkUrl('http://evil.test#@127.0.0.2/', open).hostname).toBe('evil.test');
    // backslashes are slashes for special schemes
    expect(refusal('http:\\\\127.0.0.2:8080')).toMatch(/loopback/);
    // tabs and newlines are removed by the parser before the host is read
    expect(refusal('http://127.0.\t0.1/')).toMatch(/loopback/);
    expect(checkUrl('http://exa\nmple.com/', open).hostname).toBe('example.com');
    expect(refusal(`https://example.com/${'a'.repeat(100_000)}`)).toMatch(/longer than/);
  });
});

describe('checkUrl: IP literals in every spelling (security WEB-02, WEB-03, WEB-04)', () => {
  it.each([
    'http://127.0.0.1/',
    'http://127.0.0.2:8080/',
    'http://2130706433/',
    'http://2130706434/',
    'http://0x7f000002/',
    'http://0177.0.0.1/',
    'http://0177.0.0.2/',
    'http://0x7f.1/',
    'http://0x7f.0.0.2/',
    'http://127.1/',
    'http://①②⑦.0.0.2/',
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0251.0376.0251.0376/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.2]/',
    'http://[::ffff:7f00:2]/',
    'http://[0:0:0:0:0:ffff:7f00:2]/',
    'http://[::127.0.0.2]/',
    'http://[::]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[fd00:ec2::254]/',
    'http://0.0.0.0/',
    'http://0/',
  ])('%s is refused before any connection', (url) => {
    expect(refusal(url)).not.toBeNull();
  });

  it('WEB-03: a zone id makes the URL invalid', () => {
    expect(refusal('http://[fe80::1%25lo]/')).toMatch(/not a valid/);
  });

  it('WEB-02: localhost names are refused before DNS', () => {
    for (const url of [
      'http://localhost:8080/',
      'http://LOCALHOST.:80/',
      'http://localhost.localdomain/',
      'http://a.localhost/',
    ]) {
      expect(refusal(url)).toMatch(/names this machine/);
    }
  });
});

describe('domain lists and opt-ins', () => {
  it('matches by host and subdomain, never by substring', () => {
    expect(matchesDomain('example.com', 'example.com')).toBe(true);
    expect(matchesDomain('a.b.example.com', 'example.com')).toBe(true);
    expect(matchesDomain('notexample.com', 'example.com')).toBe(false);
    expect(matchesDomain('example.com.evil.test', 'example.com')).toBe(false);
  });

  it('checklist 3: with allowed_domains=["example.com"], https://other.org is blocked', () => {
    const policy = createPolicy({ allowed_domains: ['example.com'] });
    expect(refusal('https://other.org/', policy)).toMatch(/not in allowed_domains/);
    expect(refusal('https://docs.example.com/', policy)).toBeNull();
    expect(refusal('https://fooexample.com/', policy)).toMatch(/not in allowed_domains/);
  });

  it('blocked_domains blocks the domain and its subdomains only (the reference over-blocked foo10.example.com)', () => {
    const policy = createPolicy({ blocked_domains: ['Evil.Test.'] });
    expect(refusal('https://evil.test/', policy)).toMatch(/blocked_domains/);
    expect(refusal('https://a.evil.test/', policy)).toMatch(/blocked_domains/);
    expect(refusal('https://notevil.test/', policy)).toBeNull();
    expect(refusal('https://foo10.example.com/')).toBeNull();
  });

  it('allowed_hosts opts in an exact host:port, other ports stay blocked', () => {
    const policy = createPolicy({ allowed_hosts: ['127.0.0.1:8080'] });
    expect(refusal('http://127.0.0.1:8080/', policy)).toBeNull();
    expect(refusal('http://2130706433:8080/', policy)).toBeNull();
    expect(refusal('http://127.0.0.1:8081/', policy)).toMatch(/loopback/);
    expect(connectRefusal(policy, '127.0.0.1', '8080', '127.0.0.1')).toBeNull();
    expect(connectRefusal(policy, '127.0.0.1', '9', '127.0.0.1')).not.toBeNull();
  });

  it('allowed_hosts without a port allows every port; allowed_cidrs allow addresses in the range', () => {
    expect(refusal('http://localhost:1234/', createPolicy({ allowed_hosts: ['localhost'] }))).toBeNull();
    const policy = createPolicy({ allowed_cidrs: ['10.1.0.0/16', 'fd00::/8'] });
    expect(connectRefusal(policy, 'svc.internal', '80', '10.1.2.3')).toBeNull();
    expect(connectRefusal(policy, 'svc.internal', '80', '10.2.0.1')).toMatch(/private/);
    expect(connectRefusal(policy, 'svc.internal', '80', 'fd00::5')).toBeNull();
    expect(connectRefusal(policy, 'svc.internal', '80', '::ffff:10.1.2.3')).toMatch(/IPv4-mapped/);
  });

  it('bad entries fail with the entry named', () => {
    expect(() => createPolicy({ allowed_cidrs: ['10.0.0.0'] })).toThrow(/allowed_cidrs entry '10.0.0.0'/);
    expect(() => createPolicy({ allowed_hosts: ['http://x/y'] })).toThrow(/allowed_hosts entry/);
    expect(() => createPolicy({ blocked_domains: ['a b'] })).toThrow(/blocked_domains entry 'a b'/);
  });
});
