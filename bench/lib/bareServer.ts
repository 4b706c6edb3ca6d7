// A bare uWebSockets.js server from the same package Parley uses: "hello" on every request. The
// http benchmark's ceiling: what the transport alone reaches on this machine.
import uWS from 'uWebSockets.js';

uWS
  .App()
  .any('/*', (res) => void res.end('hello'))
  .listen('127.0.0.1', 0, (socket) => {
    if (!socket) throw new Error('cannot listen');
    console.log(`listening on http://127.0.0.1:${uWS.us_socket_local_port(socket)}`);
  });
