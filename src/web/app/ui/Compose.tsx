// The compose box of the open narrow: a channel's topic (the topic is asked for in a channel
// narrow) or a direct conversation. Enter sends, Shift+Enter starts a new line; typing tells the
// others.
import { useEffect, useState } from 'preact/hooks';
import type { Chat, Destination } from '../chat.js';
import type { Narrow } from '../narrow.js';
import { channelName, conversationName } from './names.js';

function destinationOf(narrow: Narrow, topic: string): Destination | null {
  if (narrow.kind === 'topic') return { kind: 'channel', channelId: narrow.channelId, topic: narrow.topic };
  if (narrow.kind === 'channel') return { kind: 'channel', channelId: narrow.channelId, topic };
  if (narrow.kind === 'dm') return { kind: 'dm', userIds: narrow.userIds };
  return null;
}

export function Compose({ chat, narrow }: { chat: Chat; narrow: Narrow }) {
  const [topic, setTopic] = useState('');
  const [content, setContent] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const destination = destinationOf(narrow, topic);
  // Leaving a conversation stops the typing notice there.
  useEffect(() => () => void (destination && chat.typing(destination, false)), [destination && JSON.stringify(destination)]);
  if (!destination) return <p class="compose-hint">Open a channel or a conversation to write.</p>;
  const placeholder = destination.kind === 'channel' ? `Message #${channelName(chat.state, destination.channelId)}` : `Message ${conversationName(chat.state, destination.userIds)}`;

  const send = () => {
    if (content.trim() === '' || sending) return;
    setSending(true);
    setError(null);
    chat.send(destination, content).then(
      () => {
        setContent('');
        setSending(false);
      },
      (failure: Error) => {
        setError(failure.message);
        setSending(false);
      },
    );
  };

  return (
    <form
      class="compose"
      aria-label="Compose"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      {narrow.kind === 'channel' && (
        <label class="topic">
          Topic
          <input id="compose-topic" value={topic} maxLength={60} onInput={(event) => setTopic(event.currentTarget.value)} />
        </label>
      )}
      <label class="content">
        <span class="visually-hidden">Message</span>
        <textarea
          id="compose-content"
          value={content}
          placeholder={placeholder}
          rows={3}
          onInput={(event) => {
            setContent(event.currentTarget.value);
            chat.typing(destination, event.currentTarget.value !== '');
          }}
          onBlur={() => chat.typing(destination, false)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              send();
            }
          }}
        />
      </label>
      <button type="submit" disabled={sending}>
        Send
      </button>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}
