// The messages of a narrow, oldest first: it opens at the newest, fetches older ones when scrolled
// near the top (keeping what is on screen in place), follows new ones while at the bottom, and
// reports messages as seen (to be marked read) once they are half on screen. Arrow keys move
// between messages.
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import type { Chat } from '../chat.js';
import { narrowHash, type Narrow } from '../narrow.js';
import type { Message } from '../types.js';
import { MessageRow } from './MessageRow.js';
import { channelName, conversationName } from './names.js';
import { conversationOf } from '../narrow.js';

/** How near the top (px) scrolling fetches older messages. */
const FETCH_MARGIN = 400;
/** How near the bottom (px) counts as at the bottom. */
const BOTTOM_MARGIN = 80;

function recipientLabel(chat: Chat, message: Message): string {
  if (message.stream_id !== undefined) return `#${channelName(chat.state, message.stream_id)} › ${message.subject}`;
  return `Direct messages with ${conversationName(chat.state, conversationOf(message, chat.state.meId))}`;
}

export function MessageList({ chat, narrow }: { chat: Chat; narrow: Narrow }) {
  const window = chat.state.windows.get(narrowHash(narrow));
  const list = useRef<HTMLDivElement>(null);
  const anchor = useRef<{ firstId: number | undefined; height: number; atBottom: boolean }>({ firstId: undefined, height: 0, atBottom: true });
  const observer = useRef<IntersectionObserver | null>(null);
  const ids = window?.ids ?? [];

  useEffect(() => {
    observer.current = new IntersectionObserver(
      (entries) => {
        if (document.visibilityState !== 'visible') return;
        for (const entry of entries) if (entry.isIntersecting) chat.seenMessage(Number((entry.target as HTMLElement).dataset.id));
      },
      { root: list.current, threshold: 0.5 },
    );
    return () => observer.current?.disconnect();
  }, [chat]);

  // Observe the unread rows after each render.
  useEffect(() => {
    const root = list.current;
    if (!root || !observer.current) return;
    for (const row of root.querySelectorAll<HTMLElement>('[data-unread="true"]')) observer.current.observe(row);
  });

  // Keep the view where it was: at the bottom when it was there, else on the same messages when
  // older ones came in above them.
  useLayoutEffect(() => {
    const root = list.current;
    if (!root) return;
    const before = anchor.current;
    if (before.atBottom) root.scrollTop = root.scrollHeight;
    else if (before.firstId !== ids[0]) root.scrollTop += root.scrollHeight - before.height;
    anchor.current = { firstId: ids[0], height: root.scrollHeight, atBottom: before.atBottom };
  }, [ids]);

  const onScroll = () => {
    const root = list.current!;
    anchor.current = { ...anchor.current, height: root.scrollHeight, atBottom: root.scrollHeight - root.scrollTop - root.clientHeight < BOTTOM_MARGIN };
    if (root.scrollTop < FETCH_MARGIN && window && !window.foundOldest) void chat.loadOlder(narrow);
  };

  // Arrow keys move the focus from message to message (Home, End: the first and last shown);
  // Tab then reaches the focused message's buttons.
  const onKeyDown = (event: KeyboardEvent) => {
    const rows = [...list.current!.querySelectorAll<HTMLElement>('.message')];
    if (rows.length === 0) return;
    const at = rows.indexOf(document.activeElement as HTMLElement);
    const moves: Record<string, number> = { ArrowUp: at < 0 ? rows.length - 1 : at - 1, ArrowDown: at < 0 ? rows.length - 1 : at + 1, Home: 0, End: rows.length - 1 };
    const next = moves[event.key];
    if (next === undefined || (at < 0 && event.target !== list.current)) return;
    event.preventDefault();
    rows[Math.max(0, Math.min(rows.length - 1, next))]!.focus();
  };

  const mixed = narrow.kind === 'all' || narrow.kind === 'mentions' || narrow.kind === 'starred';
  let lastRecipient = '';
  return (
    <div class="message-list" ref={list} onScroll={onScroll} onKeyDown={onKeyDown} role="log" aria-label="Messages" tabIndex={0} aria-busy={chat.isLoading(narrow)}>
      {window?.foundOldest && <p class="history-start">{ids.length === 0 ? 'No messages here yet.' : 'The beginning of the conversation.'}</p>}
      {chat.isLoading(narrow) && <p class="loading">Loading…</p>}
      {ids.map((id) => {
        const message = chat.state.messages.get(id);
        if (!message) return null;
        const recipient = mixed ? recipientLabel(chat, message) : '';
        const header = recipient !== lastRecipient ? recipient : '';
        lastRecipient = recipient;
        return <MessageRow key={id} chat={chat} message={message} header={header} unread={chat.state.unread.byId.has(id)} />;
      })}
    </div>
  );
}
