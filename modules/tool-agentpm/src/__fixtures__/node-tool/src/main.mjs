// text-stats: reads {"text": "..."} on stdin, prints {"words", "chars", "upper"} on stdout.
let raw = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  raw += chunk;
});
process.stdin.on('end', () => {
  const { text } = JSON.parse(raw);
  const words = text.split(/\s+/).filter(Boolean).length;
  process.stdout.write(`${JSON.stringify({ words, chars: [...text].length, upper: text.toUpperCase() })}\n`);
});
