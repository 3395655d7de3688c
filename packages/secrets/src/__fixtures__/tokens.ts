/**
 * Fake secrets in every format the rule set claims, built when the tests run
 * (no string in this repository looks like a live token: push protection
 * rejects those, and a committed one would be a leak if it were real).
 * Bodies come from a seeded generator, so a failure names the same token
 * every run.
 */

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
export const ALNUM = UPPER + LOWER + DIGITS;
const HEX = '0123456789abcdef';
const B64URL = `${ALNUM}_-`;

/** A deterministic generator of bodies (mulberry32). */
export function fakeBody(seed: number): (length: number, alphabet?: string) => string {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (length, alphabet = ALNUM) => {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)];
    return out;
  };
}

/** `parts` joined: keeps each token's prefix apart from its body in the source. */
const j = (...parts: string[]): string => parts.join('');

/** A PEM private key of `kind` (`RSA `, `EC `, `OPENSSH `, `` ...) with a body of `lines` lines of 64. */
export function fakePem(seed: number, kind = 'RSA ', lines = 4): string {
  const body = fakeBody(seed);
  const rows = Array.from({ length: lines }, (_, i) =>
    i === 0 ? `MII${body(61, `${ALNUM}+/`)}` : body(64, `${ALNUM}+/`),
  );
  return j(
    '-----BEGIN ',
    kind,
    'PRIVATE',
    ' KEY-----\n',
    rows.join('\n'),
    '\n-----END ',
    kind,
    'PRIVATE',
    ' KEY-----',
  );
}

/** A JWT: base64url header and payload of real JSON, and a signature. */
export function fakeJwt(seed: number, signature = true): string {
  const body = fakeBody(seed);
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = b64({ alg: signature ? 'HS256' : 'none', typ: 'JWT' });
  const payload = b64({ sub: body(12), iat: 1_700_000_000, name: body(8, LOWER) });
  return `${header}.${payload}.${signature ? body(43, B64URL) : ''}`;
}

/**
 * One sample per rule id of the default set (secretlint's rules by their
 * short id, the supplement's by its own): [rule id, what, text that holds
 * the secret, the secret (what must not survive)].
 */
export function ruleSamples(seed = 1): Array<readonly [string, string, string, string]> {
  const b = fakeBody(seed);
  const aws = j('AKIA', b(16, `${UPPER}234567`));
  const awsSecret = b(40, `${ALNUM}/+`);
  const pem = fakePem(seed);
  const stripe = j('sk', '_live_', b(32));
  const npm = j('npm', '_', b(36));
  const ghp = j('ghp', '_', b(36));
  const pat = j('github', '_pat_', b(22), '_', b(59));
  const slack = j('xox', 'b-', b(11, DIGITS), '-', b(12, DIGITS), '-', b(24));
  const openai = j('sk', '-proj-', b(74, B64URL), 'T3Blbk', 'FJ', b(74, B64URL));
  const anthropic = j('sk', '-ant-api03-', b(93, B64URL), 'AA');
  const sendgrid = j('SG', '.', b(22, `${ALNUM}_`), '.', b(43, `${ALNUM}_`));
  const sendgridDash = j('SG', '.', b(10), '-', b(11), '.', b(20), '-', b(22));
  const shopify = j('shp', 'at_', b(32, HEX));
  const gitlab = j('gl', 'pat-', b(20, B64URL));
  const grafana = j('gl', 'sa_', b(32), '_', b(8, HEX));
  const groq = j('gs', 'k_', b(52));
  const hf = j('h', 'f_', b(34, UPPER + LOWER));
  const linear = j('lin', '_api_', b(40));
  const notion = j('nt', 'n_', b(11, DIGITS), b(35));
  const opsJson = {
    email: `${b(13, LOWER)}@example.invalid`,
    muk: { alg: 'A256GCM', k: b(43, B64URL) },
    secretKey: b(34),
    srpX: b(64, HEX),
  };
  let opsText = JSON.stringify(opsJson);
  while (opsText.length % 3 !== 1) opsText = `${opsText.slice(0, -1)} }`;
  const onepassword = j('op', 's_', Buffer.from(opsText).toString('base64'));
  const vault = j('hv', 's.', b(100, B64URL));
  const vercel = j('vc', 'p_', b(40));
  const databricks = j('da', 'pi', b(32, HEX));
  const docker = j('dckr', '_pat_', b(27, B64URL));
  const figma = j('fig', 'd_', b(40, B64URL));
  const cloudflare = j('cf', 'ut_', b(40), b(8, HEX));
  const tailscale = j('tskey', '-auth-', b(12), '-', b(30));
  const pw = b(14);
  const google = b(35, B64URL);
  const sk = b(48);
  const rk = b(16);
  const npmLong = b(40);
  const gho = b(32);
  const xoxp = b(30);
  return [
    ['aws', 'AWS secret access key assignment', `aws_secret_access_key = ${awsSecret}`, awsSecret],
    ['privatekey', 'PEM RSA private key', `key:\n${pem}\n`, pem.split('\n')[1] as string],
    ['npm', 'npm access token', `//registry.npmjs.org/:_authToken=${npm}`, npm],
    ['basicauth', 'basic auth in a URL', `git clone https://deploy:${pw}@git.example.com/app.git`, pw],
    ['slack', 'Slack bot token', `SLACK=${slack}`, slack],
    ['sendgrid', 'SendGrid key', `sendgrid ${sendgrid}`, sendgrid],
    ['shopify', 'Shopify access token', `token ${shopify}`, shopify],
    ['stripe', 'Stripe live secret key', `Stripe.apiKey = "${stripe}";`, stripe],
    ['github', 'GitHub fine-grained token (and a classic one)', `remote: ${ghp} ${pat}`, pat],
    ['gitlab', 'GitLab personal access token', `PRIVATE-TOKEN ${gitlab}`, gitlab],
    ['grafana', 'Grafana service account token', `grafana ${grafana}`, grafana],
    ['openai', 'OpenAI project key (with its marker)', `OPENAI ${openai}`, openai],
    ['anthropic', 'Anthropic API key', `x-api ${anthropic}`, anthropic],
    ['groq', 'Groq key', `groq ${groq}`, groq],
    ['huggingface', 'Hugging Face token', `hub ${hf}`, hf],
    ['linear', 'Linear API key', `linear ${linear}`, linear],
    ['notion', 'Notion integration token', `notion ${notion}`, notion],
    ['1password', '1Password service account token', `op ${onepassword}`, onepassword],
    [
      'database_connection_string',
      'PostgreSQL URI with a password',
      `DATABASE_URL is postgres://app:${pw}@db.internal:5432/app`,
      pw,
    ],
    ['hashicorp_vault', 'Vault service token', `vault ${vault}`, vault],
    ['vercel', 'Vercel token', `vercel ${vercel}`, vercel],
    ['databricks', 'Databricks token', `dbx ${databricks}`, databricks],
    ['docker', 'Docker Hub PAT', `docker ${docker}`, docker],
    ['figma', 'Figma token', `figma ${figma}`, figma],
    ['cloudflare', 'Cloudflare user token', `cf ${cloudflare}`, cloudflare],
    ['tailscale', 'Tailscale auth key', `ts ${tailscale}`, tailscale],
    ['private_key', 'PEM key cut before its END line', `${pem.slice(0, 120)}`, pem.slice(40, 100)],
    ['sendgrid_key', 'SendGrid key with - in it', `sg ${sendgridDash}`, sendgridDash.slice(3)],
    ['aws_access_key', 'AWS access key id', `id ${aws}`, aws],
    ['google_api_key', 'Google API key', `https://maps.example/api?k=${j('AI', 'za')}${google}`, google],
    ['jwt', 'JWT', `Authorization token ${fakeJwt(seed)}`, fakeJwt(seed).split('.')[1] as string],
    ['sk_key', 'OpenAI-style key without the marker', `key ${j('sk', '-')}${sk}`, sk],
    ['stripe_key', 'Stripe key shorter than 24', `${j('rk', '_prod_')}${rk}`, rk],
    ['npm_token', 'npm token longer than 36', `${j('npm', '_')}${npmLong}`, npmLong],
    ['github_token', 'GitHub token of another length', `${j('gh', 'o_')}${gho}`, gho],
    ['slack_token', 'Slack token in one segment', `${j('xox', 'p-')}${xoxp}`, xoxp],
  ] as const;
}

/** Slack's incoming-webhook URL (secretlint's slack rule). */
export function slackWebhook(seed = 1): string {
  const b = fakeBody(seed);
  return j(
    'https://hooks.',
    'slack.com/services/T',
    b(10, UPPER + DIGITS),
    '/B',
    b(10, UPPER + DIGITS),
    '/',
    b(24),
  );
}

/** Text that holds no secret and must come out unchanged. */
export function plainSamples(seed = 2): string[] {
  const b = fakeBody(seed);
  const uuid = `${b(8, HEX)}-${b(4, HEX)}-4${b(3, HEX)}-a${b(3, HEX)}-${b(12, HEX)}`;
  return [
    'The quick brown fox jumps over the lazy dog.',
    `commit ${b(40, HEX)}`,
    `git checkout ${b(7, HEX)} && git log -1 ${b(40, HEX)}`,
    `sha256:${b(64, HEX)}`,
    `sha512-${Buffer.from(b(64)).toString('base64')}`,
    `session ${uuid}`,
    `"session_id": "${uuid}", "parent_id": null`,
    Buffer.from('Hello, world! This is an ordinary sentence, base64-encoded for transport.').toString(
      'base64',
    ),
    Buffer.from('{"event":"tool:post","tool_name":"read_file","ok":true}').toString('base64url'),
    'https://example.com/docs/getting-started?page=2&lang=en',
    'contact: alice@example.com, bob@example.org',
    'ssh git@github.com:org/repo.git',
    'max_tokens=4096 token_count=120 input_tokens: 88',
    'npm_config_cache=/root/.npm npm_lifecycle_event=test',
    '/home/user/projects/app/src/index.ts:42:7',
    'postgres://db.internal:5432/app (no password)',
    'const skill = "sk-learn"; ask_user; task_list',
    'Set AWS_ACCESS_KEY_ID in your environment (see the docs).',
    'The private key is kept in the agent; nothing is printed.',
    'eyes on the prize. they key the money.',
    'eyebrows_and_lashes.eyeliner_and_mascara.txt',
    'msg.content, sg.group, hf_transfer, dapi docs',
    '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----',
    "ghp_ and npm_ are token prefixes; sk_live_ is Stripe's.",
  ];
}
