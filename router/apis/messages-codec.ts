import { depthOver, MAX_DEPTH } from '../engine/validate-request.js';
import type { InboundCodec } from './api-codec.js';
import { decodeMessagesRequest, MessagesInvalid } from './messages-request.js';
import { anthropicErrorBody, anthropicErrorType, encodeMessage } from './messages-response.js';
import { messagesStreamEncoder } from './messages-stream.js';
import { engineError, reencodeStream, withBody } from './reshape.js';

const reply = (status: number, body: string, headers: Record<string, string> = {}) => ({
  status,
  headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
  body,
});

/**
 * The Anthropic Messages API (`POST /v1/messages`): `anthropic-version` required as Anthropic
 * requires it, every error (the router's own 503 + Retry-After included) in Anthropic's
 * `{"type":"error","error":{…}}` shape, answers and streams translated from the engine's.
 */
export const messagesCodec: InboundCodec = {
  name: 'Anthropic Messages',
  shutdownFrame: `event: error\ndata: ${anthropicErrorBody('overloaded_error', 'The router is shutting down.')}\n\n`,
  streamEnded: /event: (message_stop|error)\n[^\n]*\n\n$/,
  preflight(headers) {
    const v = headers['anthropic-version'];
    if (typeof v !== 'string' || v.trim() === '')
      return reply(400, anthropicErrorBody('invalid_request_error', 'anthropic-version: header is required'));
    return undefined;
  },
  decode(body) {
    if (depthOver(body, MAX_DEPTH))
      return {
        ok: false,
        reply: reply(
          400,
          anthropicErrorBody('invalid_request_error', `Request body nested deeper than ${MAX_DEPTH} levels.`),
        ),
      };
    try {
      return { ok: true, req: decodeMessagesRequest(body) };
    } catch (error) {
      if (!(error instanceof MessagesInvalid)) throw error;
      return { ok: false, reply: reply(400, anthropicErrorBody('invalid_request_error', error.message)) };
    }
  },
  error(status, _type, _code, message, headers) {
    return reply(status, anthropicErrorBody(anthropicErrorType(status), message), headers);
  },
  encode(result, requestedModel) {
    if (result.kind === 'stream') return reencodeStream(result, messagesStreamEncoder(requestedModel));
    if (result.status < 400) return withBody(result, encodeMessage(result.body, requestedModel));
    const e = engineError(result.body);
    const extra = e.attempts !== undefined ? { attempts: e.attempts } : {};
    return withBody(result, anthropicErrorBody(anthropicErrorType(result.status), e.message, extra));
  },
};
