import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { dashboardPage } from './dashboard-page.js';

describe('dashboardPage', () => {
  it('embeds a script that parses, with the page logic it calls', () => {
    const html = dashboardPage();
    const inline = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
    expect(() => new Script(inline)).not.toThrow();
    for (const name of ['attemptFeed', 'faultView', 'faultRequest', 'backlogPages'])
      expect(inline).toContain(`function ${name}(`);
  });

  it('offers a form for every kind of fault', () => {
    const kinds = [...dashboardPage().matchAll(/<option>([^<]+)<\/option>/g)].map((m) => m[1]);
    expect(kinds).toEqual(['status', 'latency', 'hang', 'reset', 'malformed', 'stream-break', 'keep-alive']);
  });
});
