import { RequiredMark } from '../../ui/formParts';

interface LikertItemProps {
  name: string;
  question: string;
  points: number;
  /** Two labels (the ends of the scale) or one label per point, as in common/survey.ts. */
  anchors: string[];
  required: boolean;
  value: number | undefined;
  invalid: boolean;
  onChange: (value: number) => void;
}

/** One Likert item: a fieldset whose legend is the question; each point a labelled radio. */
export function LikertItem({ name, question, points, anchors, required, value, invalid, onChange }: LikertItemProps) {
  const errorId = `${name}-error`;
  const anchorFor = (point: number): string | undefined =>
    anchors.length === points ? anchors[point - 1] : point === 1 ? anchors[0] : point === points ? anchors.at(-1) : undefined;
  return (
    <fieldset id={`item-${name}`} className={invalid ? 'invalid' : undefined} aria-describedby={invalid ? errorId : undefined}>
      <legend>
        {question}
        <RequiredMark required={required} />
      </legend>
      <div className="likert">
        {Array.from({ length: points }, (_, index) => index + 1).map((point) => (
          <label key={point}>
            <input
              type="radio"
              name={name}
              value={point}
              checked={value === point}
              onChange={() => onChange(point)}
            />
            <span>{point}</span>
            {anchorFor(point) && <span className="hint">{anchorFor(point)}</span>}
          </label>
        ))}
      </div>
      {invalid && (
        <p id={errorId} className="field-error">
          Please choose an answer.
        </p>
      )}
    </fieldset>
  );
}
