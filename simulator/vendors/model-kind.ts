/**
 * Whether a model only embeds: every embedding model the vendors list carries "embed" in its name
 * (text-embedding-3-small, gemini-embedding-001, text-embedding-004, mistral-embed,
 * amazon.titan-embed-text-v2, nomic-embed-text), and no chat model does.
 */
export function isEmbeddingModel(model: string): boolean {
  return /embed/i.test(model);
}
