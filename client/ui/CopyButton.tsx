import { useState } from 'react';

/** Copies `text` to the clipboard and says so; falls back to selecting the text when the API is missing. */
export function CopyButton({ text, label, className }: { text: string; label: string; className?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <button type="button" className={className} onClick={() => void copy()} aria-label={label}>
        {state === 'copied' ? 'Copied' : 'Copy'}
      </button>
      <span role="status" className="hint">
        {state === 'copied' ? 'Copied to the clipboard.' : state === 'failed' ? 'Could not copy: please select the code and copy it by hand.' : ''}
      </span>
    </>
  );
}
