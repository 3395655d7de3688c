const { Coordinator, silentLogger } = await import('@amplifier/core');
const otel = await import('@amplifier/hooks-otel');
const { trace, context } = await import('@opentelemetry/api');
const sdk = await import('@opentelemetry/sdk-trace-base');
const useSdk = process.argv[2] === 'sdk';
if (useSdk) trace.setGlobalTracerProvider(new sdk.BasicTracerProvider({ spanProcessors: [new sdk.BatchSpanProcessor({ export(s, d) { d({ code: 0 }); }, async shutdown() {} })] }));
const c = new Coordinator({ sessionId: 's', logger: silentLogger });
c.hooks.setDefaultFields({ session_id: 's', parent_id: null });
if (process.argv[3] !== 'bare') await otel.mount(c, {});
await c.hooks.emit('session:start', { session_id: 's', parent_id: null });
await c.hooks.emit('prompt:submit', { prompt: 'go' });
const result = { success: true, output: 'ok' }; const input = { text: 'hello' };
for (let r = 0; r < 6; r++) {
  const n = 50000; const t = performance.now();
  for (let i = 0; i < n; i++) { const id = `call_${r}_${i}`;
    await c.hooks.emit('tool:pre', { tool_name: 'echo', tool_call_id: id, tool_input: input, parallel_group_id: 'g' });
    await c.hooks.emit('tool:post', { tool_name: 'echo', tool_call_id: id, tool_input: input, result }); }
  console.log(((performance.now() - t) * 1e6 / n / 1000).toFixed(2), 'us/call');
}
