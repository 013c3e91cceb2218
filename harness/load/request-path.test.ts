import { describe, expect, it } from 'vitest';
import { errorShapeOf } from '../checks/error-shape.js';
import { requestPath } from './request-path.js';

describe('requestPath', () => {
  it.each([
    ['/v1/', '/chat/completions', '/v1/chat/completions', 'openai'],
    ['/v1', '/responses', '/v1/responses', 'openai'],
    ['/v1/', '/messages', '/v1/messages', 'anthropic'],
    ['/v1/', '/embeddings', '/v1/embeddings', 'openai'],
    ['/', '/messages', '/messages', 'anthropic'],
    ['/gateway/v1//', '/messages', '/gateway/v1/messages', 'anthropic'],
  ])('puts %s and %s together as %s, judged in the %s shape', (base, api, path, shape) => {
    expect(requestPath(base, api)).toBe(path);
    expect(errorShapeOf(requestPath(base, api))).toBe(shape);
  });
});
