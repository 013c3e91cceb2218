/** A content block of a Messages or Converse turn. */
export type Block = Record<string, unknown>;

/** A turn of a conversation whose vendor wants user and assistant turns to alternate. */
export interface Turn {
  role: 'user' | 'assistant';
  content: Block[];
}

/**
 * Appends `content` as a `role` turn, merged into the last turn when that has the same role (a tool
 * result and the user message after it, two user messages in a row); no content adds nothing.
 */
export function pushTurn(turns: Turn[], role: Turn['role'], content: Block[]): void {
  if (content.length === 0) return;
  const last = turns.at(-1);
  if (last?.role === role) last.content.push(...content);
  else turns.push({ role, content });
}
