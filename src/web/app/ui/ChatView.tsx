// The chat page: the narrows on the left, the open narrow's messages and compose box in the
// middle, the people on the right. The open narrow is the page's address (#narrow/…).
import { useEffect, useState } from 'preact/hooks';
import type { Chat } from '../chat.js';
import { narrowHash, parseHash, type Narrow } from '../narrow.js';
import { Compose } from './Compose.js';
import { MessageList } from './MessageList.js';
import { narrowTitle } from './names.js';
import { Sidebar } from './Sidebar.js';
import { TypingLine } from './TypingLine.js';
import { UserList } from './UserList.js';

function useNarrow(): Narrow {
  const [narrow, setNarrow] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const follow = () => setNarrow(parseHash(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return narrow;
}

const statusText = { live: 'Live', connecting: 'Connecting…', polling: 'Live (long-poll)' };

export function ChatView({ chat, onSignOut }: { chat: Chat; onSignOut: () => void }) {
  const narrow = useNarrow();
  const key = narrowHash(narrow);
  useEffect(() => void chat.open(narrow), [chat, key, chat.generation, chat.state.windows.get(key)?.stale]);
  useEffect(() => {
    if (narrow.kind === 'channel' || narrow.kind === 'topic') void chat.loadTopics(narrow.channelId);
  }, [chat, key, chat.generation]);
  const me = chat.state.users.get(chat.state.meId);
  return (
    <div class="chat">
      <a class="skip" href="#compose-content">
        Skip to compose
      </a>
      <header class="top">
        <span class="brand">Parley</span>
        <span class={`connection ${chat.status}`} role="status" data-status={chat.status}>
          {statusText[chat.status]}
        </span>
        <span class="me">{me?.full_name}</span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      {chat.ended && (
        <p class="ended" role="alert">
          Your session has ended ({chat.ended}). Sign out and sign in again.
        </p>
      )}
      <Sidebar chat={chat} current={narrow} />
      <main class="messages-pane" aria-labelledby="narrow-title">
        <h1 id="narrow-title" class="narrow-title">
          {narrowTitle(chat.state, narrow)}
        </h1>
        <MessageList key={key} chat={chat} narrow={narrow} />
        <TypingLine chat={chat} narrow={narrow} />
        <Compose chat={chat} narrow={narrow} />
      </main>
      <UserList chat={chat} />
    </div>
  );
}
