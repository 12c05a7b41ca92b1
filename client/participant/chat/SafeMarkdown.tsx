import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import type { Root, RootContent, Parent } from 'mdast';
import { isValidElement, type ReactNode } from 'react';
import { CopyButton } from '../../ui/CopyButton';

/**
 * Renders chat/consent markdown safely. Never raw HTML: there is no rehype-raw, and HTML found in
 * the markdown (`<img onerror=…>`, `<script>`) is turned into plain text nodes, so the reader sees
 * exactly what was written and the browser never creates the element. Links get a safe URL
 * (react-markdown's default transform drops javascript: etc.) and open in a new tab. GitHub-flavoured
 * markdown (remark-gfm: tables, strikethrough, task lists, autolinks) is parsed into the same tree, so the
 * same rules hold for it. Code blocks get a copy button.
 */
function htmlAsText() {
  return (tree: Root) => {
    const walk = (node: Parent) => {
      node.children = node.children.map((child: RootContent): RootContent => {
        if (child.type === 'html') return { type: 'text', value: child.value, position: child.position };
        if ('children' in child) walk(child);
        return child;
      });
    };
    walk(tree);
  };
}

/** The text inside a rendered node (a code block's children are strings and spans). */
function textOf(node: ReactNode): string {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join('');
  if (isValidElement<{ children?: ReactNode }>(node)) return textOf(node.props.children);
  return '';
}

const components: Components = {
  pre: ({ node: _node, children, ...props }) => (
    <div className="code-block">
      <pre {...props}>{children}</pre>
      <CopyButton text={textOf(children).replace(/\n$/, '')} label="Copy the code" className="secondary copy-code" />
    </div>
  ),
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer nofollow" />,
  // Images in model output could be used to exfiltrate data through URLs; show them as links instead.
  img: ({ src, alt }) => (
    <a href={typeof src === 'string' ? src : undefined} target="_blank" rel="noopener noreferrer nofollow">
      {alt || 'image'}
    </a>
  ),
};

export function SafeMarkdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <Markdown remarkPlugins={[remarkGfm, htmlAsText]} components={components}>
        {text}
      </Markdown>
    </div>
  );
}
