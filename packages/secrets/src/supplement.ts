/**
 * The supplement: formats that secretlint's recommended preset does not find
 * (Google `AIza` keys, JWTs) or finds only in their exact current shape, where
 * a log must also catch a variant (a key cut short by truncated output, an
 * older or newer length, AWS's documented example key). Each rule says why it
 * is here. They run after the preset's rules; where both match, the preset's
 * name is kept.
 */
import type { SecretRule } from './scanner.js';

/** The prefixes of AWS access key ids (four characters; `A3T` takes any fourth): the one list, used by the rule below and by the redactor's secret-key-near-its-id rule. */
export const AWS_KEY_ID_PREFIXES: readonly string[] = [
  'A3T',
  'AKIA',
  'ASIA',
  'AGPA',
  'AIDA',
  'AROA',
  'AIPA',
  'ANPA',
  'ANVA',
  'ABIA',
  'ACCA',
];

/** An AWS access key id as a regular-expression source (no flags, no groups that capture). */
export const AWS_KEY_ID_SOURCE: string = `\\b(?:${AWS_KEY_ID_PREFIXES.map((p) => (p.length === 3 ? `${p}[A-Z0-9]` : p)).join('|')})[A-Z0-9]{16}\\b`;

interface RegexRuleSpec {
  id: string;
  description: string;
  keywords: readonly string[];
  regex: RegExp;
}

function regexRule({ id, description, keywords, regex }: RegexRuleSpec): SecretRule {
  if (!regex.global) throw new TypeError(`The supplement rule ${id} needs a global (g) regular expression.`);
  return {
    id,
    origin: 'supplement',
    description,
    keywords,
    find(text, report) {
      // exec, not matchAll (which copies the expression on every call).
      regex.lastIndex = 0;
      for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
        report(match.index, match.index + match[0].length);
        if (match[0] === '') regex.lastIndex++;
      }
    },
  };
}

/** The supplement's rules, in the order they run. */
export const SUPPLEMENT_RULES: readonly SecretRule[] = [
  regexRule({
    id: 'private_key',
    description:
      'PEM private keys from the BEGIN line to the END line or the end of the text (secretlint wants the whole key: END line, 100+ base64 characters, known magic bytes; cut output, a JSON-escaped or short key is still a key)',
    keywords: ['private key'],
    regex:
      /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  }),
  regexRule({
    id: 'aws_access_key',
    description:
      "AWS access key ids (AKIA, ASIA, A3T., AGPA, AIDA, AROA, AIPA, ANPA, ANVA, ABIA, ACCA + 16): secretlint's aws rule skips AWS's documentation example, which a log cannot tell from a real key",
    keywords: AWS_KEY_ID_PREFIXES.map((prefix) => prefix.toLowerCase()),
    regex: new RegExp(AWS_KEY_ID_SOURCE, 'g'),
  }),
  regexRule({
    id: 'google_api_key',
    description: "Google API keys (AIza + 35): secretlint's gcp rule finds key files only",
    keywords: ['aiza'],
    regex: /\bAIza[\w-]{35,}/g,
  }),
  regexRule({
    id: 'jwt',
    description:
      'JSON Web Tokens (header.payload.signature, base64url of JSON objects; the signature may be empty): no secretlint rule',
    keywords: ['eyj', '.ey'],
    // Header and payload are base64url of a JSON object: `{` then `"` or a space (ey[I-L], ey[A-D]).
    regex: /\bey[A-DI-L][\w-]{14,}\.ey[A-DI-L][\w-]{14,}\.[\w-]*|\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}/g,
  }),
  regexRule({
    id: 'sk_key',
    description:
      "keys written sk-... (OpenAI's sk-proj-/sk-svcacct-/sk-admin- and legacy keys, Anthropic's sk-ant-*, DeepSeek and other compatible APIs): secretlint finds OpenAI keys only with their T3BlbkFJ marker and Anthropic's of one length",
    keywords: ['sk-'],
    regex: /\bsk-[A-Za-z0-9_-]{20,}/g,
  }),
  regexRule({
    id: 'stripe_key',
    description:
      "Stripe secret and restricted keys of any length from 10 (sk_/rk_ + live/test/prod) and webhook secrets (whsec_): secretlint's stripe rule wants 24+ characters and no prod",
    keywords: ['sk_live', 'sk_test', 'sk_prod', 'rk_live', 'rk_test', 'rk_prod', 'whsec_'],
    regex: /\b(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,}|\bwhsec_[A-Za-z0-9+/=]{16,}/g,
  }),
  regexRule({
    id: 'sendgrid_key',
    description:
      "SendGrid keys (SG. + two base64url segments): secretlint's sendgrid rule stops at a - inside a segment, which real keys have",
    keywords: ['sg.'],
    regex: /\bSG\.[\w-]{16,}\.[\w-]{16,}/g,
  }),
  regexRule({
    id: 'npm_token',
    description: "npm tokens (npm_ + 30 or more): secretlint's npm rule wants exactly 36",
    keywords: ['npm_'],
    regex: /\bnpm_[A-Za-z0-9]{30,}/g,
  }),
  regexRule({
    id: 'github_token',
    description:
      "GitHub tokens (ghp_/gho_/ghu_/ghs_/ghr_ + 30 or more, github_pat_ + 22 or more): secretlint's github rule wants the exact lengths (36, 82)",
    keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
    regex: /\bgh[pousr]_[A-Za-z0-9]{30,}|\bgithub_pat_\w{22,}/g,
  }),
  regexRule({
    id: 'slack_token',
    description:
      "Slack tokens (xoxa/xoxb/xoxe/xoxo/xoxp/xoxr/xoxs-, xapp-) in any segment layout: secretlint's slack rule wants dash-separated segments of up to 40",
    keywords: ['xox', 'xapp-'],
    regex: /\bxox[abeoprs]-[A-Za-z0-9-]{10,}|\bxapp-[A-Za-z0-9-]{10,}/g,
  }),
];
