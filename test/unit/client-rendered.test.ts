// Signs that a page is built by scripts (domain/extraction/client-rendered.ts): the judgement
// that decides which pages are worth a browser, over shells and over server-rendered pages.
import { describe, expect, it } from 'vitest';
import { clientRendering } from '../../lambdas/domain/extraction/client-rendered';

const filler = '<p>A long product description that a server-rendered page carries in its HTML. </p>'.repeat(8);

describe('clientRendering', () => {
  it('sees an empty application root waiting for its script', () => {
    const html = '<html><body><div id="root"></div><script src="/app.js"></script></body></html>';
    expect(clientRendering(html)).toEqual({ clientRendered: true, signals: ['empty_app_root', 'shell_body'] });
  });

  it('sees hydration state even where the server rendered some text', () => {
    const html = `<html><body><main><h1>Tee</h1>${filler}</main><script>window.__INITIAL_STATE__ = {"offer":{}};</script></body></html>`;
    expect(clientRendering(html).signals).toEqual(['framework_bootstrap']);
    expect(clientRendering(html).clientRendered).toBe(true);
  });

  it('sees a shell whose script loads the data', () => {
    const html =
      '<html><body><div class="x"></div><script>fetch("/api/item/1").then(r => r.json())</script></body></html>';
    expect(clientRendering(html).clientRendered).toBe(true);
  });

  it('does not take a server-rendered page with a data block or an analytics fetch for an application', () => {
    const html = `<html><body><main><h1>Tee</h1>${filler}</main><script type="application/json" id="variants">[]</script><script>fetch("/collect")</script></body></html>`;
    expect(clientRendering(html)).toEqual({ clientRendered: false, signals: ['script_loads_data', 'script_data'] });
  });

  it('does not take a page without scripts for an application, however empty', () => {
    expect(clientRendering('<html><body><div id="root"></div></body></html>').clientRendered).toBe(false);
  });
});
