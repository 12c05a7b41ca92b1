import type { TopLevelSpec } from 'vega-lite';

/** Renders a vega-lite spec to a standalone SVG string in Node (no browser, no network). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  // imported lazily: vega is large, and the CLI must fail fast on bad input without loading it
  const [vega, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
