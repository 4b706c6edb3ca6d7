// The narrows: views, channels (unread counts, muted ones dimmed) with the open channel's topics,
// and the recent direct conversations (with their unread counts).
import type { Chat } from '../chat.js';
import { sortedChannels } from '../model/channels.js';
import { recentConversations } from '../model/conversations.js';
import { countUnread, topicKey } from '../model/unread.js';
import { narrowHash, type Narrow } from '../narrow.js';
import { conversationName } from './names.js';

/** Direct conversations listed, newest first. */
const RECENT_CONVERSATIONS = 12;

function Link({ narrow, current, label, count, muted }: { narrow: Narrow; current: Narrow; label: string; count?: number | undefined; muted?: boolean }) {
  const here = narrowHash(narrow) === narrowHash(current);
  const unread = count ? `, ${count} unread` : '';
  return (
    <a href={narrowHash(narrow)} class={`narrow-link${muted ? ' muted' : ''}`} aria-current={here ? 'page' : undefined} aria-label={`${label}${muted ? ', muted' : ''}${unread}`}>
      <span class="label">{label}</span>
      {count ? (
        <span class="count" aria-hidden="true">
          {count}
        </span>
      ) : null}
    </a>
  );
}

export function Sidebar({ chat, current }: { chat: Chat; current: Narrow }) {
  const { state } = chat;
  const counts = countUnread(state.unread, state.meId);
  const openChannel = current.kind === 'channel' || current.kind === 'topic' ? current.channelId : undefined;
  const conversations = recentConversations(state.conversations).slice(0, RECENT_CONVERSATIONS);
  // As Zulip counts the combined feed: muted channels left out.
  const sum = (counts: Iterable<number>) => [...counts].reduce((total, count) => total + count, 0);
  const feedCount = sum([...counts.channels].filter(([id]) => !state.subscriptions.get(id)?.is_muted).map(([, count]) => count)) + sum(counts.conversations.values());
  return (
    <nav class="sidebar" aria-label="Narrows">
      <ul>
        <li>
          <Link narrow={{ kind: 'all' }} current={current} label="Combined feed" count={feedCount} />
        </li>
        <li>
          <Link narrow={{ kind: 'mentions' }} current={current} label="Mentions" count={counts.mentions} />
        </li>
        <li>
          <Link narrow={{ kind: 'starred' }} current={current} label="Starred" />
        </li>
      </ul>
      <h2 id="channels-heading">Channels</h2>
      <ul aria-labelledby="channels-heading" class="channels">
        {sortedChannels(state).map((channel) => (
          <li key={channel.stream_id} data-channel-id={channel.stream_id}>
            <span class="swatch" style={{ background: channel.color }} aria-hidden="true" />
            <Link narrow={{ kind: 'channel', channelId: channel.stream_id }} current={current} label={channel.name} count={counts.channels.get(channel.stream_id)} muted={channel.is_muted} />
            {openChannel === channel.stream_id && (
              <ul class="topics" aria-label={`Topics of ${channel.name}`}>
                {(state.topics.get(channel.stream_id) ?? []).map((topic) => (
                  <li key={topic.name}>
                    <Link narrow={{ kind: 'topic', channelId: channel.stream_id, topic: topic.name }} current={current} label={topic.name} count={counts.topics.get(topicKey(channel.stream_id, topic.name))} />
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
      {conversations.length > 0 && (
        <>
          <h2 id="dms-heading">Direct messages</h2>
          <ul aria-labelledby="dms-heading">
            {conversations.map(({ key, userIds }) => (
              <li key={key}>
                <Link narrow={{ kind: 'dm', userIds }} current={current} label={conversationName(state, userIds)} count={counts.conversations.get(key)} />
              </li>
            ))}
          </ul>
        </>
      )}
    </nav>
  );
}
