// Preload for a peer router we did not write (`node --import ./loopback-only.mjs ...`): every
// server it opens listens on 127.0.0.1, whatever host it asked for (Portkey's Node server binds
// all interfaces and has no flag for it). Benchmarks bind nothing but loopback.
import { Server } from 'node:net';

const listen = Server.prototype.listen;
Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'object' && args[0] !== null) args[0] = { ...args[0], host: '127.0.0.1' };
  else if (typeof args[0] === 'number' || typeof args[0] === 'string') {
    if (typeof args[1] === 'string' || args[1] === undefined || args[1] === null) args[1] = '127.0.0.1';
    else args.splice(1, 0, '127.0.0.1');
  }
  return listen.apply(this, args);
};
