/**
 * The participant chat renders assistant replies (model output an attacker can steer by prompt
 * injection) as markdown. Every way to smuggle a script URL or an element must come out inert.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { SafeMarkdown } from '../../client/participant/chat/SafeMarkdown';

const render = (text: string) => renderToStaticMarkup(createElement(SafeMarkdown, { text }));

/** Every href/src value in the markup, decoded from HTML entities. */
function urls(html: string): string[] {
  const decode = (s: string) =>
    s
      .replace(/&#x([0-9a-f]+);?/gi, (_m, h: string) => String.fromCodePoint(parseInt(h, 16)))
      .replace(/&#(\d+);?/g, (_m, d: string) => String.fromCodePoint(Number(d)))
      .replace(/&colon;/gi, ':')
      .replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"');
  return [...html.matchAll(/\s(?:href|src|action|formaction|xlink:href)="([^"]*)"/gi)].map((m) => decode(m[1]!));
}

const DANGEROUS_SCHEME = /^\s*(javascript|vbscript|data|file|blob):/i;
const normalise = (u: string) => u.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');

describe('SafeMarkdown against hostile assistant replies', () => {
  it.each([
    ['inline link', '[click](javascript:alert(1))'],
    ['upper-case scheme', '[click](JAVASCRIPT:alert(1))'],
    ['mixed case with spaces', '[click]( JaVaScRiPt:alert(1) )'],
    ['tab inside the scheme', '[click](java\tscript:alert(1))'],
    ['entity-encoded scheme', '[click](&#106;avascript:alert(1))'],
    ['hex-entity colon', '[click](javascript&#x3A;alert(1))'],
    ['named-entity colon', '[click](javascript&colon;alert(1))'],
    ['percent-encoded', '[click](%6Aavascript:alert(1))'],
    ['autolink', '<javascript:alert(1)>'],
    ['reference link', '[click][x]\n\n[x]: javascript:alert(1)'],
    ['image', '![x](javascript:alert(1))'],
    ['image reference', '![x][y]\n\n[y]: javascript:alert(1)'],
    ['data: HTML', '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)'],
    ['vbscript', '[click](vbscript:msgbox(1))'],
    ['file', '[click](file:///etc/passwd)'],
    ['link title breakout', '[click](https://example.org "x\\" onmouseover=\\"alert(1))'],
  ])('%s is neutralised', (_label, text) => {
    const html = render(text);
    for (const url of urls(html)) expect(normalise(url)).not.toMatch(DANGEROUS_SCHEME);
    expect(html).not.toMatch(/<[a-z]+[^>]*\son[a-z]+=/i); // no event-handler attribute on any element
  });

  it('raw HTML in a reply is shown as text, never created as an element', () => {
    const html = render(
      'a <img src=x onerror=alert(1)> b <iframe src="javascript:alert(1)"></iframe>\n\n<svg onload=alert(1)>\n\n<a href="javascript:alert(1)">x</a>\n\n<form action="javascript:alert(1)"><button>go</button></form>',
    );
    expect(html).not.toMatch(/<(img|iframe|svg|form|button|script)\b/i);
    expect(html).not.toMatch(/<a [^>]*href="javascript/i);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('code blocks keep markup as text', () => {
    const html = render('```html\n<script>alert(1)</script>\n```');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('ordinary links still work and open safely in a new tab', () => {
    const html = render('[docs](https://example.org/a?b=1) and <https://example.org/auto> and [mail](mailto:a@example.org)');
    expect(urls(html)).toEqual(['https://example.org/a?b=1', 'https://example.org/auto', 'mailto:a@example.org']);
    expect(html.match(/rel="noopener noreferrer nofollow"/g)).toHaveLength(3);
  });
});
