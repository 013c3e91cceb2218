/**
 * Retries `check` until it stops throwing or `timeoutMs` passes (then throws its last error):
 * for what another replica sees a moment later. The timeout is generous; a pass is usually
 * a millisecond or two.
 */
export async function eventually(check: () => void | Promise<void>, timeoutMs = 5000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > giveUpAt) throw error;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}
