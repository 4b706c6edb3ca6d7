// The whole page: signing in, then the chat; signing out forgets the key.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Chat } from '../chat.js';
import { savedSession, signOut, type Session } from '../session.js';
import { ChatView } from './ChatView.js';
import { SignIn } from './SignIn.js';

export function App() {
  const [session, setSession] = useState<Session | null>(savedSession);
  if (!session) return <SignIn onSignedIn={setSession} />;
  return (
    <Connected
      key={session.apiKey}
      session={session}
      onSignOut={() => {
        signOut();
        setSession(null);
      }}
    />
  );
}

/** Re-renders on every change of the chat's state. */
function useChanges(chat: Chat): void {
  const [, setVersion] = useState(0);
  useEffect(() => chat.subscribe(() => setVersion((version) => version + 1)), [chat]);
}

function Connected({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const chat = useMemo(() => new Chat(session), [session]);
  const [ready, setReady] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useChanges(chat);
  useEffect(() => {
    chat.start().then(
      () => setReady(true),
      (failure: Error) => setError(failure.message),
    );
    return () => chat.stop();
  }, [chat]);
  if (error)
    return (
      <main class="centered">
        <p role="alert">Could not connect: {error}</p>
        <button onClick={onSignOut}>Sign out</button>
      </main>
    );
  if (!ready) return <main class="centered" aria-busy="true">Loading…</main>;
  return <ChatView chat={chat} onSignOut={onSignOut} />;
}
