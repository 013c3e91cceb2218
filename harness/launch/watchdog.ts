/**
 * A tiny supervisor, run as `node -e WATCHDOG <command> <graceMs>`, that starts a router command in its own process
 * group and stops that whole group when told to (its stdin ends) or when the harness dies (its
 * stdin ends too: the kernel closes the pipe of a killed process; and its parent changes, which it
 * checks twice a second in case the pipe is held open elsewhere). The watchdog must be spawned in
 * a session of its own (`detached`): a CI timeout (`timeout -s KILL`) kills the harness's whole
 * process group, and a watchdog in that group would die with it and leave the router behind. The
 * router's group gets SIGTERM, then SIGKILL after `graceMs`. The watchdog ignores a
 * terminal's SIGINT (the harness decides when to stop), reports the router's pid on fd 3, and
 * exits with the router's exit code (128 + the signal number if a signal ended it).
 */
export const WATCHDOG = `
const { spawn } = require('node:child_process');
const { writeSync } = require('node:fs');
const { constants } = require('node:os');
const command = process.argv[1];
const graceMs = Number(process.argv[2]) || 5000;
const router = spawn('sh', ['-c', command], { stdio: ['ignore', 'inherit', 'inherit'], detached: true });
try { writeSync(3, router.pid + '\\n'); } catch {}
const group = (signal) => { try { process.kill(-router.pid, signal); } catch {} };
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  group('SIGTERM');
  setTimeout(() => group('SIGKILL'), graceMs);
};
router.on('exit', (code, signal) => {
  group('SIGKILL');
  process.exit(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
});
router.on('error', () => process.exit(127));
process.on('SIGINT', () => {});
process.on('SIGTERM', stop);
process.on('SIGHUP', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) stop(); }, 500).unref();
`;
