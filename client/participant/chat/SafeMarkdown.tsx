import Markdown, { type Components } from 'react-markdown';
import type { Root, RootContent, Parent } from 'mdast';

/**
 * Renders chat/consent markdown safely. Never raw HTML: there is no rehype-raw, and HTML found in
 * the markdown (`<img onerror=…>`, `<script>`) is turned into plain text nodes, so the reader sees
 * exactly what was written and the browser never creates the element. Links get a safe URL
 * (react-markdown's default transform drops javascript: etc.) and open in a new tab.
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

const components: Components = {
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
      <Markdown remarkPlugins={[htmlAsText]} components={components}>
        {text}
      </Markdown>
    </div>
  );
}
