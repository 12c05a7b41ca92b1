import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { SafeMarkdown } from './SafeMarkdown';

const html = (text: string) => renderToStaticMarkup(<SafeMarkdown text={text} />);

describe('SafeMarkdown', () => {
  it('shows inline and block HTML as text, never as elements', () => {
    const out = html('Hi <img src=x onerror=alert(1)> there\n\n<script>alert(2)</script>\n\n<div onclick="x()">block</div>');
    expect(out).not.toMatch(/<img|<script|<div onclick/);
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(out).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(out).toContain('&lt;div onclick=&quot;x()&quot;&gt;block&lt;/div&gt;');
  });

  it('renders markdown and fenced code, with code content escaped', () => {
    const out = html('**bold** and `x<y`\n\n```python\nprint("<b>")\n```');
    expect(out).toContain('<strong>bold</strong>');
    expect(out).toContain('<code>x&lt;y</code>');
    expect(out).toMatch(/<pre><code class="language-python">print\(&quot;&lt;b&gt;&quot;\)\n<\/code><\/pre>/);
  });

  it('neutralises javascript: links, opens links in a new tab, and turns images into links', () => {
    const out = html('[click](javascript:alert(1)) [ok](https://example.org) ![plot](https://example.org/p.png)');
    expect(out).not.toContain('javascript:');
    expect(out).toContain('href="https://example.org" target="_blank" rel="noopener noreferrer nofollow"');
    expect(out).not.toContain('<img');
    expect(out).toContain('>plot</a>');
  });
});

describe('SafeMarkdown with GitHub tables', () => {
  it('renders a pipe table as a table, with HTML in its cells still shown as text', () => {
    const out = html('| city | days |\n| --- | ---: |\n| Porto <b>x</b> | 3 |\n| Lisbon | `2` |');
    expect(out).toMatch(/<table>.*<th>city<\/th>.*<th style="text-align:right">days<\/th>/s);
    expect(out).toContain('<td>Porto &lt;b&gt;x&lt;/b&gt;</td>');
    expect(out).toContain('<td style="text-align:right"><code>2</code></td>');
    expect(out).not.toContain('<b>');
  });

  it('gives a fenced code block a copy button', () => {
    const out = html('```\nnpm test\n```');
    expect(out).toMatch(/<div class="code-block"><pre><code>npm test\n<\/code><\/pre><button type="button" class="secondary copy-code" aria-label="Copy the code">Copy<\/button>/);
  });
});
