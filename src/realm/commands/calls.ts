// The user's video provider token: set when they complete the provider's OAuth flow, dropped when
// the provider stops accepting it; `has_provider_token` in register and in events tells clients
// whether the flow is needed before POST /calls/provider/create.
import { readCommand, writeCommand, type ReadContext } from '../context.js';

export const callCommands = {
  'calls.token': readCommand((ctx) => ctx.user.videoCallToken ?? null),

  'calls.setToken': writeCommand((ctx, input: { token: string | null }) => {
    const user = ctx.user;
    const had = user.videoCallToken !== undefined;
    const { videoCallToken: _previous, ...rest } = user;
    ctx.save('user', input.token === null ? rest : { ...rest, videoCallToken: input.token });
    if (had !== (input.token !== null)) ctx.emit({ type: 'has_provider_token', value: input.token !== null }, [user.id]);
    return {};
  }),
};

/** A provider without OAuth (Jitsi-style) needs no token: calls can always be created. Zulip's
 * name for the same value is has_zoom_token. */
export function callsInitialState(ctx: ReadContext) {
  const provider = ctx.config.videoProvider;
  const has = provider?.kind === 'jitsi' || (provider?.kind === 'oauth' && ctx.user.videoCallToken !== undefined);
  return { has_provider_token: has, has_zoom_token: has };
}
