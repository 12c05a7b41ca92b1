import { useId } from 'react';
import type { ArtifactField } from '../../../common/study';
import { FieldLabel } from '../../ui/formParts';

const DEFAULT_MAX = 20_000;

/** A text or code artifact field: a labelled textarea (monospace for code) with a length counter. */
export function TextField({
  field,
  value,
  onChange,
  onPaste,
}: {
  field: ArtifactField;
  value: string;
  onChange: (value: string) => void;
  onPaste: (chars: number) => void;
}) {
  const id = useId();
  const max = field.max_length ?? DEFAULT_MAX;
  const isCode = field.kind === 'code';
  return (
    <div className="field">
      <FieldLabel htmlFor={id} text={field.label} required={field.required} />
      {field.help && (
        <p className="hint" id={`${id}-help`}>
          {field.help}
        </p>
      )}
      <textarea
        id={id}
        name={field.id}
        className={isCode ? 'code' : undefined}
        rows={isCode ? 10 : 5}
        value={value}
        maxLength={max}
        spellCheck={!isCode}
        autoCapitalize={isCode ? 'off' : undefined}
        autoCorrect={isCode ? 'off' : undefined}
        aria-describedby={`${id}-count${field.help ? ` ${id}-help` : ''}`}
        onChange={(event) => onChange(event.target.value)}
        onPaste={(event) => onPaste(event.clipboardData.getData('text').length)}
        placeholder={isCode && field.language ? `${field.language} code` : undefined}
      />
      <span className="counter" id={`${id}-count`}>
        {value.length} / {max} characters
      </span>
    </div>
  );
}
