/**
 * Rows for the timeline: bars that overlap in time go on different rows, so
 * parallel calls show side by side; a bar takes the first row free at its start.
 */
export interface Span {
  start: number;
  /** null: still running (drawn up to `now`). */
  end: number | null;
}

/** The row of each span (same order as `spans`), and how many rows there are. */
export function assignLanes(spans: readonly Span[], now: number): { lanes: number[]; count: number } {
  const order = spans.map((_, i) => i).sort((a, b) => spans[a]!.start - spans[b]!.start || a - b);
  const laneEnds: number[] = [];
  const lanes = new Array<number>(spans.length).fill(0);
  for (const i of order) {
    const span = spans[i]!;
    const end = Math.max(span.end ?? now, span.start);
    let lane = laneEnds.findIndex((laneEnd) => laneEnd <= span.start);
    if (lane === -1) {
      lane = laneEnds.length;
      laneEnds.push(end);
    } else {
      laneEnds[lane] = end;
    }
    lanes[i] = lane;
  }
  return { lanes, count: laneEnds.length };
}
