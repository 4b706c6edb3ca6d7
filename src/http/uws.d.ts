// What uWebSockets.js 20.30 has at run time but its type declarations omit: listening on a host
// with options, the option that refuses a port another process already listens on, and closing
// every connection the app still holds.
import 'uWebSockets.js';

declare module 'uWebSockets.js' {
  interface TemplatedApp {
    listen(host: RecognizedString, port: number, options: ListenOptions, cb: (listenSocket: us_listen_socket | false) => void | Promise<void>): TemplatedApp;
    /** Closes the listen sockets and every connection, idle keep-alive ones included, at once. */
    close(): TemplatedApp;
  }
  export const LIBUS_LISTEN_EXCLUSIVE_PORT: ListenOptions;
}
