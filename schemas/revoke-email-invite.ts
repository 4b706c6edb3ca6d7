import { oneInvite } from './fragments.js';

export default oneInvite;
