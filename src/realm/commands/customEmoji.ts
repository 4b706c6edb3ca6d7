// The realm's custom emoji as the emoji checks of statuses and reactions see them: the one place
// the realm-emoji table plugs into those checks.
import type { RealmView } from '../../organization/state.js';
import type { CustomEmoji, CustomEmojiTable } from '../../users/emoji.js';

export function customEmojiOf(state: RealmView): CustomEmojiTable {
  const asCustom = (record: { id: number; name: string; deactivated: boolean }): CustomEmoji => ({ id: String(record.id), name: record.name, deactivated: record.deactivated });
  return {
    byId: (id) => {
      const record = state.realmEmoji.get(Number(id));
      return record && String(record.id) === id ? asCustom(record) : undefined;
    },
    activeByName: (name) => {
      for (const record of state.realmEmoji.values()) if (!record.deactivated && record.name === name) return asCustom(record);
      return undefined;
    },
  };
}
