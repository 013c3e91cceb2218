/**
 * A Node preload (`node --import bind-loopback.mjs …`) for a peer gateway that calls
 * `server.listen(port)` with no host, i.e. on every interface (Portkey's gateway; nullplatform's
 * llm-gateway, whose `server.host` setting is validated but never passed to `listen`): every
 * listen without a host is bound to 127.0.0.1, so the suite never exposes a gateway beyond loopback.
 */
export const LOOPBACK_PRELOAD = `import net from 'node:net';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || typeof args[0] === 'string') {
    const cb = args.find((a) => typeof a === 'function');
    return listen.call(this, { port: Number(args[0]), host: '127.0.0.1' }, cb);
  }
  if (args[0] && typeof args[0] === 'object' && !args[0].host && !args[0].path) args[0] = { ...args[0], host: '127.0.0.1' };
  return listen.apply(this, args);
};
`;
