/**
 * The redaction corpus: secrets written as text in the formats people and
 * tools use (env dumps, .env, INI and credentials files, YAML, JSON inside
 * strings, URLs, HTTP headers, command lines, connection strings), and text
 * that must come out unchanged (prose, token counts, paths, code). Used by
 * the redactor's tests (`@amplifier/secrets`), the event-log record tests
 * (`@amplifier/sessions`) and the corpus test through the real logger
 * (hooks-logging).
 */
const AWS_ID = 'AKIAIOSFODNN7EXAMPLE';

/**
 * A body of `length` characters of `alphabet` from a fixed seed: the token
 * cases are built when the tests run, so no string in the repository looks
 * like a live token (push protection rejects those).
 */
function body(
  seed: number,
  length: number,
  alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789',
): string {
  let state = seed;
  let out = '';
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out += alphabet[(state >>> 8) % alphabet.length];
  }
  return out;
}
const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const T = {
  stripe: ['sk', '_live_', body(1, 32)].join(''),
  stripeRestricted: ['rk', '_test_', body(2, 24)].join(''),
  npm: ['npm', '_', body(3, 36)].join(''),
  githubPat: ['github', '_pat_', body(4, 22), '_', body(5, 59)].join(''),
  githubClassic: ['gh', 'p_', body(6, 36)].join(''),
  slack: ['xox', 'b-', body(7, 12, '0123456789'), '-', body(8, 13, '0123456789'), '-', body(9, 24)].join(''),
  openai: ['sk', '-proj-', body(10, 74), 'T3Blbk', 'FJ', body(11, 74)].join(''),
  openaiShort: ['sk', '-proj-', body(12, 40)].join(''),
  anthropic: ['sk', '-ant-api03-', body(13, 93), 'AA'].join(''),
  google: ['AI', 'za', body(14, 35)].join(''),
  jwt: [
    b64url({ alg: 'HS256', typ: 'JWT' }),
    b64url({ sub: body(15, 10), iat: 1700000000 }),
    body(16, 43),
  ].join('.'),
  pemBody: body(17, 64, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'),
  asia: ['AS', 'IA', body(18, 16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')].join(''),
};
const PEM = [
  '-----BEGIN ',
  'OPENSSH PRIVATE',
  ' KEY-----\nb3BlbnNzaC1rZXktdjE',
  T.pemBody,
  '\n',
  T.pemBody,
  '\n-----END OPENSSH PRIVATE',
  ' KEY-----',
].join('');

/** The formats issue 37 names (T27), each in more than one setting. */
const TOKEN_CASES: ReadonlyArray<readonly [string, string, readonly string[]]> = [
  ['Stripe live key in code', `Stripe.apiKey = "${T.stripe}";`, [T.stripe.slice(8)]],
  ['Stripe restricted key in JSON', `{"stripe": "${T.stripeRestricted}"}`, [T.stripeRestricted.slice(8)]],
  ['npm token in .npmrc', `//registry.npmjs.org/:_authToken=${T.npm}`, [T.npm.slice(4)]],
  ['npm token in output', `npm notice token ${T.npm} created`, [T.npm.slice(4)]],
  [
    'GitHub fine-grained PAT',
    `git remote set-url origin https://x:${T.githubPat}@github.com/o/r`,
    [T.githubPat.slice(11)],
  ],
  ['GitHub fine-grained PAT alone', `${T.githubPat}`, [T.githubPat.slice(11)]],
  ['GitHub classic token in YAML', `github:\n  auth: ${T.githubClassic}`, [T.githubClassic.slice(4)]],
  ['Slack bot token', `slack client: ${T.slack} (bot)`, [T.slack.slice(5)]],
  ['OpenAI project key with its marker', `model ready with ${T.openai}`, [T.openai.slice(8)]],
  ['OpenAI project key without its marker', `using ${T.openaiShort} now`, [T.openaiShort.slice(8)]],
  ['Anthropic key', `x-api-key: ${T.anthropic}`, [T.anthropic.slice(14)]],
  [
    'Google API key in a URL',
    `https://maps.googleapis.com/maps/api/js?callback=x&libraries=${T.google}`,
    [T.google.slice(4)],
  ],
  ['Google API key in JSON', `{"apiKeyValue":"${T.google}"}`, [T.google.slice(4)]],
  [
    'JWT in free text',
    `session cookie was ${T.jwt} then`,
    [T.jwt.split('.')[1] as string, T.jwt.split('.')[2] as string],
  ],
  ['PEM key, JSON-escaped', JSON.stringify({ key: PEM }), [T.pemBody]],
  ['PEM key, real newlines', PEM, [T.pemBody]],
  ['PEM key, cut short', PEM.slice(0, 120), [T.pemBody.slice(0, 40)]],
  ['AWS session key id (ASIA)', `id=${T.asia},x`, [T.asia]],
  [
    'several formats in one output',
    `${T.stripe}\n${T.npm}\n${T.google}\n${T.jwt}`,
    [T.stripe.slice(8), T.npm.slice(4), T.google.slice(4), T.jwt.split('.')[2] as string],
  ],
];
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

/** [what, input, the secrets that must not be in the log]. */
export const SECRET_CASES: ReadonlyArray<readonly [string, string, readonly string[]]> = [
  // key=value: env dumps, .env files, export, case, spaces, quotes
  ['env dump', 'HOME=/root\nDB_PASSWORD=s3cr3t-Pa55\nPORT=80', ['s3cr3t-Pa55']],
  ['lower case', 'db_password=lower-case-pw1', ['lower-case-pw1']],
  ['mixed case', 'Password=CorrectHorse1', ['CorrectHorse1']],
  ['spaces around =', 'password = hunter2horse', ['hunter2horse']],
  ['export, double quotes', 'export API_TOKEN="tok-9f8e7d6c5b"', ['tok-9f8e7d6c5b']],
  ['export, single quotes', "export GITHUB_TOKEN='gh-plain-4242x'", ['gh-plain-4242x']],
  ['export, no quotes', 'export OPENAI_API_KEY=plainopenai77', ['plainopenai77']],
  [
    '.env file',
    'NODE_ENV=production\nSTRIPE_SECRET_KEY=stripe-live-abc123\nPORT=3000\n',
    ['stripe-live-abc123'],
  ],
  ['dashes in the name', 'api-key=dash-key-777', ['dash-key-777']],
  ['client secret', 'client_secret=cs-00000abc', ['cs-00000abc']],
  ['Go :=', 'authToken := "go-style-tok"', ['go-style-tok']],
  ['dotted property', 'spring.datasource.password=springpw42', ['springpw42']],
  ['upper-case env _KEY', 'ENCRYPTION_KEY=enc-key-0001', ['enc-key-0001']],
  ['numbered copy', 'API_KEY_2=second-key-abc\nGITHUB_TOKEN1=tok-one-xyz', ['second-key-abc', 'tok-one-xyz']],
  ['*_PWD', 'MYSQL_PWD=mysqlpw-1234', ['mysqlpw-1234']],
  ['Sentry DSN', 'SENTRY_DSN: https-dsn-secret-77', ['https-dsn-secret-77']],
  ['connection string variable', 'AZURE_STORAGE_CONNECTION_STRING=azconn-secret-55', ['azconn-secret-55']],
  // INI / credentials files and the AWS secret shape
  [
    'AWS credentials file',
    `[default]\naws_access_key_id = ${AWS_ID}\naws_secret_access_key = ${AWS_SECRET}\nregion = eu-west-1\n`,
    [AWS_ID, AWS_SECRET],
  ],
  ['AWS secret, no spaces', `aws_secret_access_key=${AWS_SECRET}`, [AWS_SECRET]],
  ['AWS pair, CSV', `default,${AWS_ID},${AWS_SECRET}`, [AWS_ID, AWS_SECRET]],
  ['AWS pair, columns', `${AWS_ID}\t\t${AWS_SECRET}`, [AWS_ID, AWS_SECRET]],
  ['AWS pair, secret first', `${AWS_SECRET} ${AWS_ID}`, [AWS_ID, AWS_SECRET]],
  [
    'AWS STS JSON',
    `{"AccessKeyId": "ASIAY34FZKBOKMUTVV7A", "SecretAccessKey": "${AWS_SECRET}", "SessionToken": "FwoGZXIvYXdzEBY-session"}`,
    ['ASIAY34FZKBOKMUTVV7A', AWS_SECRET, 'FwoGZXIvYXdzEBY-session'],
  ],
  ['INI file', '[database]\nhost = db\npassword = ini-pass-5\n', ['ini-pass-5']],
  // YAML
  ['YAML nested', 'database:\n  user: app\n  password: yamlSecret42\n  port: 5432', ['yamlSecret42']],
  ['YAML single quotes', "api_key: 'single-quoted-key'", ['single-quoted-key']],
  ['YAML double quotes', 'token: "double-quoted-tok"', ['double-quoted-tok']],
  ['YAML several words', 'passphrase: correct horse battery staple', ['correct horse battery staple']],
  // JSON inside a string, escaped or not
  ['JSON', '{"password": "json-pass-1", "user": "bob"}', ['json-pass-1']],
  ['JSON, no spaces', '{"user":"bob","api_key":"json-key-2"}', ['json-key-2']],
  ['JSON escaped in a string', '{"body": "{\\"password\\":\\"escaped-pass-2\\"}"}', ['escaped-pass-2']],
  ['JSON escaped twice', '"{\\\\\\"token\\\\\\":\\\\\\"deep-tok-3\\\\\\"}"', ['deep-tok-3']],
  ['JSON, value with an escaped quote', '{"password": "pa\\"ss-q4"}', ['ss-q4', 'pa\\"']],
  ['Python dict', "{'api_key': 'py-dict-key', 'debug': True}", ['py-dict-key']],
  ['JSON header object', '{"Authorization": "Basic dXNlcjpwYXNzd29yZA=="}', ['dXNlcjpwYXNzd29yZA==']],
  ['JSON nested objects', '{"auth": {"token": "nested-tok-4"}}', ['nested-tok-4']],
  ['JSON number', '{"pin_password": 918273}', ['918273']],
  // URL query keys in any position
  ['query first', 'https://api.example.com/v1?api_key=url-key-5&format=json', ['url-key-5']],
  ['query last', 'https://x.test/?format=json&apikey=url-key-6', ['url-key-6']],
  ['query in a fragment', 'https://x.test/cb#access_token=frag-tok-7&state=1', ['frag-tok-7']],
  [
    'query key=',
    'https://maps.googleapis.com/maps/api/geocode?address=x&key=plainkey12345',
    ['plainkey12345'],
  ],
  [
    'query sig=',
    'https://acct.blob.core.windows.net/c/b?sv=2020-08-04&sig=azure%2Bsig%3D',
    ['azure%2Bsig%3D'],
  ],
  [
    'query X-Amz-Signature',
    'https://b.s3.amazonaws.com/o?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=fe5f80f77d5fa3be',
    ['fe5f80f77d5fa3be'],
  ],
  ['query signature=', 'https://x.test/dl?expires=1&signature=sig-val-8', ['sig-val-8']],
  ['query token=', 'wss://x.test/socket?token=q-tok-8', ['q-tok-8']],
  ['query password=', 'ftp-gw.test/login?user=a&password=q-pass-9', ['q-pass-9']],
  ['query client_secret=', 'POST /oauth?client_id=abc&client_secret=q-cs-10&grant=1', ['q-cs-10']],
  ['query pwd=', 'https://zoom.us/j/123456?pwd=zoompwd11', ['zoompwd11']],
  ['query access_token=', 'GET /me?access_token=EAAB-fb-tok-12 HTTP/1.1', ['EAAB-fb-tok-12']],
  // HTTP headers
  ['X-Api-Key', 'X-Api-Key: hdr-key-12', ['hdr-key-12']],
  ['Authorization Basic', 'Authorization: Basic dXNlcjpzZWNyZXQ=', ['dXNlcjpzZWNyZXQ=']],
  ['authorization, lower case', 'authorization: bearer lowercasebearer13', ['lowercasebearer13']],
  ['Authorization token scheme', 'Authorization: token plaintok-gh-99', ['plaintok-gh-99']],
  [
    'Cookie',
    'Cookie: session=cookie-sess-14; csrftoken=cookie-csrf-15',
    ['cookie-sess-14', 'cookie-csrf-15'],
  ],
  ['Set-Cookie', 'Set-Cookie: id=setcookie-18; Path=/; HttpOnly', ['setcookie-18']],
  ['Proxy-Authorization', 'Proxy-Authorization: Basic cHJveHk6cGFzcw==', ['cHJveHk6cGFzcw==']],
  ['X-Auth-Token', 'X-Auth-Token: hdr-tok-16', ['hdr-tok-16']],
  ['curl -H', 'curl -H "X-Api-Key: curl-hdr-17" https://x.test', ['curl-hdr-17']],
  [
    'HTTP request dump',
    'GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l\r\nAccept: */*\r\n',
    ['YWxhZGRpbjpvcGVuc2VzYW1l'],
  ],
  // command-line flags
  ['mysql -p', 'mysql -u root -pmysqlpass19 mydb', ['mysqlpass19']],
  ['mysqldump -p quoted', "mysqldump -uroot -p'quoted-mysql-20' db > x.sql", ['quoted-mysql-20']],
  ['mysql --password=', 'mysql --password=mysqlpass21 -u root', ['mysqlpass21']],
  ['--password value', 'deploy --password flagpass22 --verbose', ['flagpass22']],
  ['--token value', 'gh-release --token flagtok23 v1.2', ['flagtok23']],
  ['--api-key "value"', 'tool --api-key "flag-key-25" run', ['flag-key-25']],
  ['--client-secret value', 'az login --client-secret flagcs26', ['flagcs26']],
  ['curl -u', 'curl -u alice:curlpass26 https://x.test', ['curlpass26']],
  ['curl --user quoted', "curl --user 'bob:curlpass27' https://x.test", ['curlpass27']],
  ['sshpass -p', 'sshpass -p sshpass28 ssh user@host', ['sshpass28']],
  ['sshpass -p joined', 'sshpass -psshpass29 ssh host', ['sshpass29']],
  ['redis-cli -a', 'redis-cli -h localhost -a redispass30 ping', ['redispass30']],
  ['keytool -storepass', 'keytool -list -keystore k.jks -storepass storepass31', ['storepass31']],
  ['openssl pass:', 'openssl pkcs12 -in x.p12 -passin pass:osslpass32 -nodes', ['osslpass32']],
  ['env prefix', 'PGPASSWORD=pgenvpass33 psql -h db', ['pgenvpass33']],
  // connection strings
  ['postgres URL', 'postgres://app:pgpass33@db.internal:5432/app', ['pgpass33']],
  ['mongodb+srv URL', 'mongodb+srv://user:mongopass34@cluster0.x.net/db', ['mongopass34']],
  ['redis URL, no user', 'redis://:redisurl35@cache:6379/0', ['redisurl35']],
  ['URL, @ in the password', 'postgres://user:p@ss@word39@host/db', ['p@ss@word39', 'word39']],
  [
    'ADO.NET',
    'Server=tcp:x.database.windows.net;Database=db;User ID=u;Password=ado pass 36;Encrypt=true;',
    ['ado pass 36', 'pass 36'],
  ],
  ['ODBC Pwd', 'Driver={ODBC};Server=x;Uid=sa;Pwd=odbcpwd37;', ['odbcpwd37']],
  [
    'Azure storage',
    'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=azurekey38==;EndpointSuffix=core.windows.net',
    ['azurekey38=='],
  ],
  ['JDBC properties', 'jdbc:mysql://db:3306/app?user=app&password=jdbcpass40', ['jdbcpass40']],
  // other config and code formats
  [
    'JS object, camelCase',
    "const client = new Client({ apiKey: 'js-camel-key-1', region: 'eu' });",
    ['js-camel-key-1'],
  ],
  ['Python kwargs', "connect(host='db', user='app', password='py-kw-pass')", ['py-kw-pass']],
  ['TOML', '[database]\npassword = "toml-pass-1"', ['toml-pass-1']],
  ['.NET appSettings', '<add key="ApiToken" value="dotnet-tok-1" />', ['dotnet-tok-1']],
  ['XML element', '<server><id>x</id><password>hunter2xml</password></server>', ['hunter2xml']],
  ['PHP array', "'db' => ['password' => 'php-array-pw']", ['php-array-pw']],
  ['Ruby symbol hash', ':password => "ruby-sym-pw"', ['ruby-sym-pw']],
  ['label with spaces', 'API Key: abc123def', ['abc123def']],
  ['label with three words', 'Secret Access Key: zzzz-secret', ['zzzz-secret']],
  [
    'Kubernetes env list',
    'env:\n  - name: DB_PASSWORD\n    value: k8spw1\n  - name: LOG_LEVEL\n    value: debug',
    ['k8spw1'],
  ],
  [
    'ECS env JSON',
    '[{"name": "API_TOKEN", "value": "ecs-tok-2"}, {"name": "REGION", "value": "eu"}]',
    ['ecs-tok-2'],
  ],
  ['.netrc, lines', 'machine api.github.com\n  login octocat\n  password netrcsecret1', ['netrcsecret1']],
  ['.netrc, one line', 'machine example.com login bob password netrcpw3', ['netrcpw3']],
  ['.npmrc', '//registry.npmjs.org/:_authToken=npmrc-tok-41', ['npmrc-tok-41']],
  ['PowerShell', '$env:API_KEY = "powershell-key"', ['powershell-key']],
  ['docker -e', 'docker run -e POSTGRES_PASSWORD=dockerpw -e FOO=bar img', ['dockerpw']],
  ['docker login -p', 'docker login -u bob -p dockerpw4 registry.example.com', ['dockerpw4']],
  ['Java system property', 'java -Dspring.datasource.password=javaprop -jar app.jar', ['javaprop']],
  ['value starting with $', 'password=$ecret123', ['$ecret123', 'ecret123']],
  [
    'aws configure prompts',
    `AWS Access Key ID [None]: ${AWS_ID}\nAWS Secret Access Key [None]: ${AWS_SECRET}`,
    [AWS_ID, AWS_SECRET],
  ],
  [
    'AWS secret next to an id already redacted',
    `key [REDACTED:aws_access_key] secret ${AWS_SECRET}`,
    [AWS_SECRET],
  ],
  // known shapes in free text
  ['OpenAI key', 'key is sk-proj-abcdefghijklmnopqrstuvwxyz0123456789', ['sk-proj-abcdefghijklmnop']],
  ['GitHub token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB in the log', ['ghp_abcdefghijklmnop']],
  ['Bearer', 'curl -H "Authorization: Bearer eyFakeBearerToken0123456789abcdef"', ['eyFakeBearerToken']],
  ...TOKEN_CASES,
];

/** Text that must come out exactly as it went in. */
export const PLAIN_CASES: readonly string[] = [
  'PWD=/home/me/project\nOLDPWD=/tmp',
  'session_id: 3f2a9c1e-0000-4000-8000-000000000000',
  'the password field is required',
  'Please enter your password.',
  'Reset your password here: https://example.com/reset',
  'max_tokens: 4096',
  '{"max_tokens": 4096, "input_tokens": 12, "output_tokens": 5, "total_tokens": 17}',
  'token_count=512',
  'Used 1,234 tokens (prompt 1,000, completion 234)',
  '/home/user/.ssh/id_rsa.pub',
  'src/auth/token.ts:12:export function refresh() {',
  'config/secrets/README.md',
  'const tokenizer = new Tokenizer();',
  'author: Jane Doe',
  'monkey=banana',
  'primary_key: id',
  'sort_key = created_at',
  'if (token == null) return;',
  'const ok = (token) => token !== undefined;',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: references are the test data
  'password: ${DB_PASSWORD}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: references are the test data
  'DB_PASSWORD=${DB_PASSWORD}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: references are the test data
  'api_key: ${{ secrets.API_KEY }}',
  'token = os.environ["GITHUB_TOKEN"]',
  'const apiKey = process.env.OPENAI_API_KEY;',
  'password: <your password here>',
  'password=********',
  'auth: true',
  'password: string;',
  'export PATH=/usr/local/bin:$PATH',
  'PWD=/home/user/project',
  'SSH_AUTH_SOCK=/tmp/ssh-agent.sock',
  'mkdir -p build/out && cp -p a b',
  'ssh -p 2222 user@host',
  'mysql -u root -p mydb',
  'https://example.com/search?q=token+limits&page=2',
  'https://example.com/keys/list?id=7',
  'git commit -m "fix token refresh"',
  'commit 3f786850e387550fdab836ed7e6dc881de23001b',
  'curl -s https://example.com/api?format=json',
  'curl --user-agent Mozilla https://x.test',
  'api_key_env: OPENAI_API_KEY',
  'password_min_length=8',
  '{"key": "value", "keyboard": "us"}',
  'tool --token-file /run/secrets/tok',
  'Authorization header missing',
  'token limit reached: 128000',
  'git@github.com:org/repo.git',
  'https://user@example.com/path',
  'ls -la ~/.aws/credentials',
  'Token usage: 512 in, 128 out',
  'tokens.map(token => token.id)',
  'by default password reset emails are sent',
  'the machine is off and the password is set',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: references are the test data
  '<password>${env.DB_PASSWORD}</password>',
  'password=$DB_PASSWORD',
  // hashes, ids and encodings that are not secrets
  'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  'git log 9fceb02 a94a8fe5ccb19ba61c4c0873d391e987982fbbd3',
  'request 123e4567-e89b-12d3-a456-426614174000 done',
  'SGVsbG8sIHdvcmxkISBUaGlzIGlzIG9yZGluYXJ5IHRleHQgaW4gYmFzZTY0Lg==',
  'integrity sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==',
  'etag: "33a64df551425fcc55e4d42a148795d9f25f89d4"',
];

/**
 * Key names that hold secrets (beyond the reference's `SENSITIVE_KEYS`): what
 * core's `isSecretKey` must accept, and what the secrets kit's search of
 * secret names in free text must find the end of.
 */
export const SECRET_KEY_NAMES: readonly string[] = [
  // the reference's keys in other cases and separators
  'API_KEY',
  'Api-Key',
  'X-Api-Key',
  'Authorization',
  'Proxy-Authorization',
  'Cookie',
  'Set-Cookie',
  'passwd',
  'passphrase',
  'client_secret',
  // secret endings
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'openaiApiKey',
  'GITHUB_TOKEN',
  'NPM_TOKEN',
  'HF_TOKEN',
  'AWS_SECRET_ACCESS_KEY',
  'aws_secret_access_key',
  'AWS_SESSION_TOKEN',
  'PGPASSWORD',
  'db.password',
  'DATABASE_PASSWORD',
  'SLACK_BOT_TOKEN',
  'refresh_token',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'basic_auth',
  'NPM_CONFIG__AUTH',
  'SSH_PASSPHRASE',
  // upper-case environment names ending in _KEY / _PAT
  'STRIPE_KEY',
  'AZURE_OPENAI_KEY',
  'SENDGRID_KEY',
  'GITHUB_PAT',
  // numbered copies, key words before the end
  'API_KEY_2',
  'GITHUB_TOKEN1',
  'SECRET_KEY_BASE',
  'signing_key',
  'encryption_key',
  'master_key',
  'license_key',
  'Ocp-Apim-Subscription-Key',
  'AccountKey',
  'MYSQL_PWD',
  'AWS_ACCESS_KEY_ID',
  'AZURE_STORAGE_CONNECTION_STRING',
  'SESSION_COOKIE',
  'SENTRY_DSN',
  'DOCKER_AUTH_CONFIG',
];

/** Key names that look like secret names and are not: what `isSecretKey` must refuse. */
export const PLAIN_KEY_NAMES: readonly string[] = [
  'max_tokens',
  'tokens',
  'token_count',
  'api_key_env',
  'author',
  'authored_by',
  'PATH',
  'HOME',
  'SSH_AUTH_SOCK',
  'AWS_REGION',
  'cache_key',
  'sort_key',
  'primary_key',
  'key',
  'keyboard',
  'PWD',
  'OLDPWD',
  'model',
  'secretary',
  'password_hint_shown',
  'v2',
  'item_3',
];
