import { useState } from 'react';
import type { ArtifactField } from '../../../common/study';
import type { UploadView } from '../../../common/session';
import { actionMessageOf } from '../errorMessages';
import { RequestError } from '../../socket/errors';
import { uploadImage } from '../api';
import { useSessionFileUrl } from '../sessionFiles';
import { ErrorAlert, FieldLabel } from '../../ui/formParts';

/**
 * An image artifact field: choose a file, see a preview and the upload's progress. The field's value
 * is the upload id the server returns (POST /api/session/upload).
 */
export function ImageField({
  field,
  value,
  uploads,
  token,
  limits,
  invalid,
  inputId,
  onChange,
}: {
  field: ArtifactField;
  value: string;
  uploads: UploadView[];
  token: string;
  limits: { maxUploadBytes: number; uploadTypes: string[] };
  /** Required and still without an image after a Submit. */
  invalid: boolean;
  inputId: string;
  onChange: (uploadId: string) => void;
}) {
  const id = inputId;
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Uploads made since the last state snapshot; the preview is served back by the server, so what
  // the participant sees is exactly what was stored.
  const [fresh, setFresh] = useState<UploadView[]>([]);
  const stored = [...fresh, ...uploads].find((u) => u.id === value);
  // The stored image is fetched with the token header into a blob: URL (never a token in the <img> URL).
  const previewFile = useSessionFileUrl(stored?.url ?? null, token);
  const preview = stored ? { src: previewFile.src, error: previewFile.error, name: stored.fileName } : null;

  const choose = async (file: File | undefined) => {
    setError(null);
    if (!file) return;
    if (!limits.uploadTypes.includes(file.type)) {
      setError(`Please choose an image file (${limits.uploadTypes.map((t) => t.replace('image/', '').toUpperCase()).join(', ')}).`);
      return;
    }
    if (file.size > limits.maxUploadBytes) {
      setError(`This file is too big (${formatBytes(file.size)}); the limit is ${formatBytes(limits.maxUploadBytes)}.`);
      return;
    }
    setProgress(0);
    try {
      const uploaded = await uploadImage(token, field.id, file, setProgress);
      setFresh((list) => [
        { id: uploaded.uploadId, fieldId: uploaded.fieldId, fileName: uploaded.fileName, contentType: uploaded.contentType, bytes: uploaded.bytes, url: uploaded.url },
        ...list,
      ]);
      onChange(uploaded.uploadId);
    } catch (err) {
      setError(uploadFailure(err, limits.uploadTypes));
    } finally {
      setProgress(null);
    }
  };

  return (
    <div className={invalid ? 'field invalid' : 'field'}>
      <FieldLabel htmlFor={id} text={field.label} required={field.required} />
      {field.help && <p className="hint">{field.help}</p>}
      <input
        id={id}
        name={field.id}
        type="file"
        accept={limits.uploadTypes.join(',')}
        disabled={progress !== null}
        aria-invalid={invalid}
        aria-describedby={invalid ? `${id}-error` : undefined}
        onChange={(event) => {
          void choose(event.target.files?.[0]);
          event.target.value = '';
        }}
      />
      {invalid && (
        <p className="field-error" id={`${id}-error`}>
          Please upload an image.
        </p>
      )}
      <p className="hint">
        {preview ? 'Choose another file to replace this image. ' : ''}Images up to {formatBytes(limits.maxUploadBytes)}.
      </p>
      {progress !== null && (
        <div role="status">
          <progress value={progress} max={1} aria-label={`Uploading ${field.label}`} />
          <span className="hint">Uploading… {Math.round(progress * 100)}%</span>
        </div>
      )}
      <ErrorAlert message={error} />
      {preview && (
        <figure>
          {preview.src ? (
            <img className="image-preview" src={preview.src} alt={`Your uploaded image for “${field.label}”: ${preview.name}`} />
          ) : preview.error ? (
            <p className="hint" role="status">The preview could not be loaded ({preview.error}). Your upload is saved.</p>
          ) : (
            <p className="hint" role="status">Loading the preview…</p>
          )}
          <figcaption className="hint">Uploaded: {preview.name}</figcaption>
        </figure>
      )}
    </div>
  );
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

/**
 * Why an upload was refused, for the participant. The server reads the file's content: a file named .png (or
 * reported as an image) that is not one is refused as invalid input, which here means "not an image".
 */
export function uploadFailure(err: unknown, uploadTypes: string[]): string {
  const names = uploadTypes.map((t) => t.replace('image/', '').toUpperCase());
  const kinds = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? 'image');
  if (err instanceof RequestError && err.code === 'invalid_input')
    return `This file is not a ${kinds} image (its content is something else), so it was not uploaded. Please choose an image file, for example a screenshot saved as ${names[0] ?? 'PNG'}.`;
  return `The upload failed: ${actionMessageOf(err)}`;
}
