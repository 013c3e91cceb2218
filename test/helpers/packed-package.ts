import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cachedDir, type CacheClock } from './cached-dir.js';
import { packageContentHash } from './package-content-hash.js';

const exec = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');

/** The package as `npm pack` made it, and an empty project that installed it from the tarball. */
export interface PackedPackage {
  /** The tarball, e.g. `…/throttlelab-0.1.0.tgz`. */
  tarball: string;
  /** The paths the tarball holds, as `npm pack --json` lists them. */
  files: string[];
  /** A project (`{ "name": "my-router", … }`) whose node_modules holds the package; copy it before writing into it. */
  project: string;
}

/** What a pack writes into its (empty) directory: the tarball's name and the paths in it. */
export type PackFn = (root: string, dir: string) => Promise<{ filename: string; files: string[] }>;

/** npm run from `npm test` passes its own settings down as npm_config_*; the user's project has none. */
export function userEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))) as Record<string, string>;
}

const PROJECT_MANIFEST = '{ "name": "my-router", "private": true, "type": "module" }\n';

/**
 * `npm pack` without scripts (`prepack` would build again), then `npm install` of the tarball,
 * copied beside the project's manifest as a user would (`./throttlelab-0.1.0.tgz`), into an empty
 * project, from npm's cache where it can (the package's dependencies come from the registry).
 */
const npmPack: PackFn = async (root, dir) => {
  const env = userEnv();
  const opts = { env, timeout: 120_000, maxBuffer: 64 << 20 };
  const { stdout } = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    ...opts,
    cwd: root,
  });
  const [info] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const project = join(dir, 'project');
  await mkdir(project);
  await writeFile(join(project, 'package.json'), PROJECT_MANIFEST);
  await copyFile(join(dir, info!.filename), join(project, info!.filename));
  await exec(
    'npm',
    ['install', `./${info!.filename}`, '--prefer-offline', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts'],
    { ...opts, cwd: project },
  );
  return { filename: info!.filename, files: info!.files.map((f) => f.path) };
};

/**
 * An empty project of one's own at `dest` (created) holding the installed package: its node_modules
 * hard links to the cache's (nothing writes into an installed package; a copy took seconds), but
 * for npm's hidden lock file, which npm rewrites in place and which is copied.
 */
export async function copyInstalledProject(packed: PackedPackage, dest: string): Promise<void> {
  await mkdir(dest, { recursive: true });
  await writeFile(join(dest, 'package.json'), PROJECT_MANIFEST);
  const modules = join(dest, 'node_modules');
  await exec('cp', ['-al', join(packed.project, 'node_modules'), modules]);
  await rm(join(modules, '.package-lock.json'));
  await copyFile(join(packed.project, 'node_modules/.package-lock.json'), join(modules, '.package-lock.json'));
}

export interface PackedPackageOptions {
  /** The package's checkout; this repository's by default. */
  root?: string;
  /** Where packs are kept; `$TMPDIR/throttlelab-packed` by default. */
  cacheRoot?: string;
  pack?: PackFn;
  clock?: CacheClock;
}

/**
 * The package packed (and installed) once per UTC day and content: the cache key is the day and
 * a hash of everything the tarball can hold, so a test always gets a pack of the current files,
 * and the registry's dependencies are resolved afresh each day. Concurrent callers (vitest's
 * workers) wait for one pack rather than making two.
 */
export async function packedPackage(options: PackedPackageOptions = {}): Promise<PackedPackage> {
  const root = options.root ?? ROOT;
  const pack = options.pack ?? npmPack;
  const now = options.clock?.now() ?? Date.now();
  const key = `${new Date(now).toISOString().slice(0, 10)}-${(await packageContentHash(root)).slice(0, 16)}`;
  const dir = await cachedDir({
    root: options.cacheRoot ?? join(tmpdir(), 'throttlelab-packed'),
    key,
    clock: options.clock,
    fill: async (scratch) => {
      const packed = await pack(root, scratch);
      await writeFile(join(scratch, 'packed.json'), JSON.stringify(packed));
    },
  });
  const { filename, files } = JSON.parse(await readFile(join(dir, 'packed.json'), 'utf8')) as Awaited<
    ReturnType<PackFn>
  >;
  return { tarball: join(dir, filename), files, project: join(dir, 'project') };
}
