import type { RouterConfig } from '../config/schema.js';
import type { TargetRuntime, TargetSet } from './target.js';

/** The targets each model name a client may ask for stands for: auto, an alias, `provider/model`, or a model name. */
export class ModelRoutes {
  /** What `auto` stands for: the chat models, or for embeddings the embedding models. */
  private readonly auto: { chat: TargetRuntime[]; embeddings: TargetRuntime[] };

  constructor(
    private readonly config: RouterConfig,
    private readonly set: TargetSet,
  ) {
    this.auto = {
      chat: set.targets.filter((t) => t.modelConfig.kind === 'chat'),
      embeddings: set.targets.filter((t) => t.modelConfig.kind === 'embeddings' && t.adapter.embeddings),
    };
  }

  /** The targets `model` stands for, none when it names nothing routed here. */
  resolve(model: string, api: 'chat' | 'embeddings' = 'chat'): TargetRuntime[] {
    if (model === this.config.autoModel) return [...this.auto[api]];
    if (api === 'embeddings') return this.resolve(model).filter((t) => t.adapter.embeddings);
    const alias = this.config.aliases[model];
    if (alias) return alias.flatMap((t) => this.set.byModel.get(t) ?? []);
    return this.set.byModel.get(model) ?? [];
  }

  /** The model names a client can ask for, as `GET /v1/models` lists them. */
  names(): string[] {
    const names = new Set<string>([this.config.autoModel, ...Object.keys(this.config.aliases)]);
    for (const p of this.config.providers) for (const m of p.models) names.add(`${p.id}/${m.name}`);
    return [...names];
  }
}
