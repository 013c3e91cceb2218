import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launchCommand } from '../launch/launch-command.js';
import type { RunData } from '../run-data.js';
import { runScenario } from '../run-scenario.js';
import { loadRunScenarioFile } from '../scenario/parse-run-scenario.js';
import type { LlmGatewayInstall } from './install-llm-gateway.js';
import { llmGatewayScenario } from './llm-gateway-config.js';

/**
 * Runs a scenario file against an installed llm-gateway, its config written from the scenario to
 * `<install>/configs/<scenario name>.json`. One model name of the load is routed (`dropped` lists
 * the others, never sent). The gateway serves its OpenAI-style API under `/openai/v1` and answers
 * `/health` once up; it runs in its install folder (it reads a `.env` from its working directory).
 * `env` is what its process gets (its PATH: only `bin/` reads the real environment); `logFile`
 * keeps its own output.
 */
export async function runLlmGatewayScenario(
  gateway: LlmGatewayInstall,
  file: string,
  o: { env: Readonly<Record<string, string | undefined>>; logFile?: string },
): Promise<{ run: RunData; dropped: string[]; routed: string }> {
  const loaded = await loadRunScenarioFile(file, {});
  if (!loaded.ok || !loaded.scenario.load) throw new Error(loaded.ok ? `${file}: no load` : loaded.report);
  const { scenario, config, dropped, routed } = llmGatewayScenario(loaded.scenario);
  const configs = join(gateway.dir, 'configs');
  await mkdir(configs, { recursive: true });
  const configFile = join(configs, `${scenario.name.replace(/[^\w.-]/g, '-')}.json`);
  await writeFile(configFile, JSON.stringify(config, null, 2) + '\n');
  const run = await runScenario({
    scenario,
    scenarioText: loaded.text,
    scenarioFile: file,
    seed: loaded.scenario.seed ?? 1,
    launcher: (ctx) =>
      launchCommand(
        ctx,
        {
          command: gateway.command(configFile),
          cwd: gateway.dir,
          env: {},
          readyPath: '/health',
          basePath: '/openai/v1',
          startTimeout: 60_000,
          ...(o.logFile ? { logFile: o.logFile } : {}),
        },
        o.env,
      ),
  });
  return { run, dropped, routed };
}
