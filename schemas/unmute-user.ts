// The same path parameter as muting.
export { default } from './mute-user.js';
