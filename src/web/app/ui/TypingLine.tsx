// Who is typing in the open conversation; the line clears itself when their notices lapse.
import { useEffect, useState } from 'preact/hooks';
import type { Chat } from '../chat.js';
import { typistsIn } from '../model/typing.js';
import { narrowHash, type Narrow } from '../narrow.js';
import { userName } from './names.js';

export function TypingLine({ chat, narrow }: { chat: Chat; narrow: Narrow }) {
  const [now, setNow] = useState(Date.now());
  const typists = typistsIn(chat.state, narrowHash(narrow), Date.now());
  useEffect(() => {
    if (typists.length === 0) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [typists.length > 0, now]);
  return (
    <p class="typing" aria-live="polite">
      {typists.length > 0 ? `${typists.map((id) => userName(chat.state, id)).join(', ')} ${typists.length === 1 ? 'is' : 'are'} typing…` : ''}
    </p>
  );
}
