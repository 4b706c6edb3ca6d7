// The organization's people with their presence; choosing one opens the direct conversation.
import { useEffect, useState } from 'preact/hooks';
import type { Chat } from '../chat.js';
import { presenceStatus } from '../model/users.js';
import { narrowHash } from '../narrow.js';

const statusLabel = { active: 'active', idle: 'idle', offline: 'offline' };

export function UserList({ chat }: { chat: Chat }) {
  const [now, setNow] = useState(() => Date.now() / 1000);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now() / 1000), 30_000);
    return () => clearInterval(timer);
  }, []);
  const people = [...chat.state.users.values()].filter((user) => user.is_active && !user.is_bot).sort((a, b) => a.full_name.localeCompare(b.full_name));
  return (
    <aside class="users" aria-labelledby="users-heading">
      <h2 id="users-heading">People</h2>
      <ul>
        {people.map((user) => {
          const status = presenceStatus(chat.state.presence.get(user.user_id), now);
          return (
            <li key={user.user_id} data-user-id={user.user_id} data-presence={status}>
              <span class={`presence ${status}`} aria-hidden="true" />
              <a href={narrowHash({ kind: 'dm', userIds: [user.user_id] })} aria-label={`${user.full_name}, ${statusLabel[status]}`}>
                {user.full_name}
              </a>
            </li>
          );
        })}
      </ul>
    </aside>
  );
}
