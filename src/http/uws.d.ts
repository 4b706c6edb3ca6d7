// What uWebSockets.js 20.30 has at run time but its type declarations omit: listening on a host
// with options, and the option that refuses a port another process already listens on.
import 'uWebSockets.js';

declare module 'uWebSockets.js' {
  interface TemplatedApp {
    listen(host: RecognizedString, port: number, options: ListenOptions, cb: (listenSocket: us_listen_socket | false) => void | Promise<void>): TemplatedApp;
  }
  export const LIBUS_LISTEN_EXCLUSIVE_PORT: ListenOptions;
}
