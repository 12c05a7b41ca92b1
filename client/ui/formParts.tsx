/** Small pieces every participant form uses, so each looks and reads the same to screen readers. */

/** The " *" after a required field's label (hidden from screen readers, which hear "(required)"). */
export function RequiredMark({ required }: { required: boolean }) {
  if (!required) return null;
  return (
    <>
      <span className="required-mark" aria-hidden="true"> *</span>
      <span className="visually-hidden"> (required)</span>
    </>
  );
}

/** A form control's visible label, marked when the answer is required. */
export function FieldLabel({ htmlFor, text, required }: { htmlFor: string; text: string; required: boolean }) {
  return (
    <label htmlFor={htmlFor}>
      {text}
      <RequiredMark required={required} />
    </label>
  );
}

/** A problem the participant should see now (announced by screen readers); nothing when `message` is empty. */
export function ErrorAlert({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p className="error-box" role="alert">
      {message}
    </p>
  );
}
