// An AgentPM tool: reads {"text": "..."} as JSON on stdin, prints {"words", "chars"} as JSON on stdout.
// tool-agentpm runs it in its own process for every call and checks both documents against agent.json.
let raw = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  raw += chunk;
});
process.stdin.on('end', () => {
  const { text } = JSON.parse(raw);
  const words = text.split(/\s+/).filter(Boolean).length;
  process.stdout.write(`${JSON.stringify({ words, chars: [...text].length })}\n`);
});
