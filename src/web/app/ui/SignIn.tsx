// Sign in with e-mail and password, or, on a development server, as one of its demo users.
import { useEffect, useState } from 'preact/hooks';
import { devSignIn, devUsers, signIn, type Session } from '../session.js';

export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [demo, setDemo] = useState<string[]>([]);
  useEffect(() => void devUsers().then(setDemo), []);
  const attempt = (signingIn: Promise<Session>) => {
    setError(null);
    signingIn.then(onSignedIn, (failure: Error) => setError(failure.message));
  };
  return (
    <main class="sign-in">
      <h1>Sign in to Parley</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          attempt(signIn(email, password));
        }}
      >
        <label>
          E-mail
          <input name="username" type="email" autocomplete="username" required value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" required value={password} onInput={(event) => setPassword(event.currentTarget.value)} />
        </label>
        <button type="submit">Sign in</button>
      </form>
      {error && <p role="alert" class="error">{error}</p>}
      {demo.length > 0 && (
        <section aria-labelledby="demo-users">
          <h2 id="demo-users">Development: sign in as</h2>
          <ul class="demo-users">
            {demo.map((username) => (
              <li key={username}>
                <button type="button" onClick={() => attempt(devSignIn(username))}>
                  {username}
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </main>
  );
}
