import { useLayoutEffect, useRef } from 'react';
import type { ArtifactField } from '../../../common/study';
import { FieldLabel } from '../../ui/formParts';

const DEFAULT_MAX = 20_000;

/** A text or code artifact field: a labelled textarea (monospace for code) with a length counter. */
export function TextField({
  field,
  value,
  invalid,
  inputId,
  onChange,
  onPaste,
}: {
  field: ArtifactField;
  value: string;
  /** Required and still empty after a Submit: marked and explained until filled. */
  invalid: boolean;
  inputId: string;
  onChange: (value: string) => void;
  onPaste: (chars: number) => void;
}) {
  const id = inputId;
  const max = field.max_length ?? DEFAULT_MAX;
  const isCode = field.kind === 'code';
  // A value that changes without typing here (a draft saved in another tab) keeps the caret where it was,
  // instead of the browser moving it to the end: the caret is read while the box still shows the old value
  // (during render, before React writes the new one) and put back after the write.
  const box = useRef<HTMLTextAreaElement>(null);
  const caret = useRef<{ start: number; end: number } | null>(null);
  const el = box.current;
  if (el && el.value !== value && el === document.activeElement) caret.current = { start: el.selectionStart, end: el.selectionEnd };
  useLayoutEffect(() => {
    const kept = caret.current;
    caret.current = null;
    if (!kept || !box.current || box.current !== document.activeElement) return;
    box.current.setSelectionRange(Math.min(kept.start, value.length), Math.min(kept.end, value.length));
  }, [value]);
  return (
    <div className={invalid ? 'field invalid' : 'field'}>
      <FieldLabel htmlFor={id} text={field.label} required={field.required} />
      {field.help && (
        <p className="hint" id={`${id}-help`}>
          {field.help}
        </p>
      )}
      <textarea
        ref={box}
        id={id}
        name={field.id}
        className={isCode ? 'code' : undefined}
        rows={isCode ? 10 : 5}
        value={value}
        maxLength={max}
        spellCheck={!isCode}
        autoCapitalize={isCode ? 'off' : undefined}
        autoCorrect={isCode ? 'off' : undefined}
        aria-invalid={invalid}
        aria-describedby={`${invalid ? `${id}-error ` : ''}${id}-count${field.help ? ` ${id}-help` : ''}`}
        onChange={(event) => onChange(event.target.value)}
        onPaste={(event) => onPaste(event.clipboardData.getData('text').length)}
        placeholder={isCode && field.language ? `${field.language} code` : undefined}
      />
      {invalid && (
        <p className="field-error" id={`${id}-error`}>
          Please fill in this field.
        </p>
      )}
      <span className="counter" id={`${id}-count`}>
        {value.length} / {max} characters
      </span>
    </div>
  );
}
