import type { ServerResponse } from 'node:http';
import type { ApiReply, InboundCodec } from '../apis/api-codec.js';
import { messagesCodec } from '../apis/messages-codec.js';
import { responsesCodec } from '../apis/responses-codec.js';

/** One served API path: what the engine routes, and the codec between the client's API and the engine's. */
export interface Endpoint {
  api: 'chat' | 'embeddings';
  codec?: InboundCodec;
}

/** The APIs served: chat completions as they are (the fast path), the others through their codecs. */
export const ENDPOINTS: Readonly<Record<string, Endpoint>> = {
  '/v1/chat/completions': { api: 'chat' },
  '/v1/embeddings': { api: 'embeddings' },
  '/v1/responses': { api: 'chat', codec: responsesCodec },
  '/v1/messages': { api: 'chat', codec: messagesCodec },
};

/** Sends a reply as it is. */
export const send = (res: ServerResponse, r: ApiReply) => {
  res.writeHead(r.status, r.headers);
  res.end(r.body);
};
