/**
 * The sessions the server knows, by id: found by scanning AMPLIFIER_HOME,
 * scanned again when an id is not known yet (a session started after the
 * page was opened). Ids from a URL are only ever looked up here, never
 * joined to a path.
 */
import { findSessionFolders, type SessionFolder } from '../reader/session-folder.js';

export class SessionIndex {
  readonly home: string;
  #byId = new Map<string, SessionFolder>();

  constructor(home: string) {
    this.home = home;
  }

  scan(): SessionFolder[] {
    const folders = findSessionFolders(this.home);
    this.#byId = new Map(folders.map((f) => [f.id, f]));
    return folders;
  }

  get(id: string): SessionFolder | undefined {
    if (!this.#byId.has(id)) this.scan();
    return this.#byId.get(id);
  }
}
