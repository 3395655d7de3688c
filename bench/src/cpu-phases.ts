/**
 * The phases of a CLI run read from its `--cpu-prof` profile: the time of the
 * first and last sample whose stack holds a given function, relative to the
 * profile's start (the end of Node's bootstrap). Sampling makes each edge
 * accurate to about one sampling interval, and the profiler slows the run, so
 * phases are reported as shares of the profiled run as well as milliseconds.
 */
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A function to look for: the end of its file's URL (or a pattern of the URL) and its name. */
export interface Marker {
  file: string | RegExp;
  fn: string;
}

function urlMatches(url: string, file: string | RegExp): boolean {
  return typeof file === 'string' ? url.endsWith(file) : file.test(url);
}

/** First and last sample time (ms since the profile's start) of each marker found, and the profile's length. */
export function markerSpans(
  profileFile: string,
  markers: Record<string, Marker>,
): { total: number; spans: Record<string, { first: number; last: number }> } {
  const profile = JSON.parse(fs.readFileSync(profileFile, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const matches = (node: ProfileNode): string[] =>
    Object.entries(markers)
      .filter(([, m]) => node.callFrame.functionName === m.fn && urlMatches(node.callFrame.url, m.file))
      .map(([name]) => name);
  const spans: Record<string, { first: number; last: number }> = {};
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i] ?? 0;
    const at = (time - profile.startTime) / 1000;
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id);
      if (node === undefined) break;
      for (const name of matches(node)) {
        const span = spans[name];
        if (span === undefined) spans[name] = { first: at, last: at };
        else span.last = at;
      }
    }
  }
  return { total: (profile.endTime - profile.startTime) / 1000, spans };
}
