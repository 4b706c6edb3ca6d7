// A realm log in memory, for tests of what a cluster's log is given: it keeps every append, and
// can be told to refuse (as a log fenced by another owner would).
import type { RealmLog } from '../../src/realm/log.js';
import type { Change } from '../../src/store/changes.js';

export class MemoryLog implements RealmLog {
  readonly entries: { realmId: number; changes: readonly Change[] }[] = [];
  refusing = false;

  async append(realmId: number, changes: readonly Change[]): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (this.refusing) throw new Error('the log refused');
    this.entries.push({ realmId, changes });
  }

  abandon(): void {
    this.refusing = true;
  }
}
