import { launchCommand } from '../launch/launch-command.js';
import type { RunData } from '../run-data.js';
import { runScenario } from '../run-scenario.js';
import { loadRunScenarioFile } from '../scenario/parse-run-scenario.js';
import type { PortkeyInstall } from './install-portkey.js';
import { portkeyScenario } from './portkey-config.js';

/**
 * Runs a scenario file against an installed Portkey gateway, its routing config written from the
 * scenario. Only the models that config can route are sent (`dropped` lists the others: `auto`
 * would answer them from another provider). `env` is what Portkey's process gets (its PATH: only
 * `bin/` reads the real environment); `logFile` keeps Portkey's own output.
 */
export async function runPortkeyScenario(
  portkey: PortkeyInstall,
  file: string,
  o: { env: Readonly<Record<string, string | undefined>>; logFile?: string },
): Promise<{ run: RunData; dropped: string[] }> {
  const loaded = await loadRunScenarioFile(file, {});
  if (!loaded.ok || !loaded.scenario.load) throw new Error(loaded.ok ? `${file}: no load` : loaded.report);
  const { scenario, dropped } = portkeyScenario(loaded.scenario);
  const run = await runScenario({
    scenario,
    scenarioText: loaded.text,
    scenarioFile: file,
    seed: loaded.scenario.seed ?? 1,
    launcher: (ctx) =>
      launchCommand(
        ctx,
        {
          command: portkey.command,
          env: {},
          readyPath: '/',
          startTimeout: 60_000,
          ...(o.logFile ? { logFile: o.logFile } : {}),
        },
        o.env,
      ),
  });
  return { run, dropped };
}
