/**
 * @amplifier/viewer: a local web app over the sessions on disk (this CLI's
 * and Python Amplifier's): `serveSessions` is `amplifier view`;
 * `startViewer` is the server alone (tests, apps); the reader and the
 * event fold are exported for tools that want the same view as data.
 */
export type { EventRecord } from './model/records.js';
export type { Approval, ProviderCall, ToolRun, Usage, UsageTotals } from './model/session-fold.js';
export { SessionFold } from './model/session-fold.js';
export type { LiveUpdate, SessionDetail, SessionSummary } from './model/summary.js';
export { findSessionFolders, type SessionFolder } from './reader/session-folder.js';
export { DEFAULT_LIMITS, type ReadLimits, SessionReader } from './reader/session-reader.js';
export { parsePort, type ServeOptions, type Serving, serveSessions, VIEW_TOKEN_ENV } from './serve.js';
export { basePath, startViewer, type Viewer, type ViewerOptions } from './server/server.js';
