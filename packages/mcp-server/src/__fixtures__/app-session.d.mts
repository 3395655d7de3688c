import type { AmplifierSession } from '@amplifier/core';

/** What the fixture's tools and hook saw: aborted `slow` calls, `tool:pre` events. */
export interface AppState {
  aborted: number;
  events: string[];
}

/** An initialized session of in-memory modules (see app-session.mjs). */
export function openAppSession(): Promise<{ session: AmplifierSession; state: AppState }>;
