import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type LaunchedBrowser } from './browser';

describe('launchBrowser', () => {
  let launched: LaunchedBrowser;
  beforeAll(async () => {
    launched = await launchBrowser();
  });
  afterAll(async () => {
    await launched?.close();
  });

  it('drives Debian Chromium against a loopback page', async () => {
    const server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<button id="b" onclick="this.textContent=\'clicked\'">press</button>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const page = await launched.browser.newPage();
      await page.goto(`http://127.0.0.1:${port}/`);
      await page.click('#b');
      expect(await page.textContent('#b')).toBe('clicked');
    } finally {
      server.close();
    }
  });
});
