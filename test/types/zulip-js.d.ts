// The part of Zulip's JavaScript library (zulip-js 2.1, untyped) that test/zulipJs.test.ts drives.
declare module 'zulip-js' {
  type Params = Record<string, unknown>;
  /** Every call answers the server's JSON body. */
  type Answer = Promise<Record<string, unknown> & { result: string; msg: string }>;

  interface ZulipClient {
    callEndpoint(endpoint: string, method?: string, params?: Params): Answer;
    queues: { register(params?: Params): Answer; deregister(params: Params): Answer };
    events: { retrieve(params: Params): Answer };
    messages: {
      send(params: Params): Answer;
      retrieve(params: Params): Answer;
      update(params: Params): Answer;
      flags: { add(params: Params): Answer; remove(params: Params): Answer };
    };
    reactions: { add(params: Params): Answer; remove(params: Params): Answer };
    typing: { send(params: Params): Answer };
    streams: { subscriptions: { retrieve(): Answer } };
    users: { me: { getProfile(): Answer } };
  }

  export default function zulip(config: { username: string; apiKey: string; realm: string }): Promise<ZulipClient>;
}
