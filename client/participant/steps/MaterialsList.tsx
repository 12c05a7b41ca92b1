import { useState } from 'react';
import type { MaterialView } from '../../../common/session';
import { actionMessageOf } from '../errorMessages';
import { ErrorAlert } from '../../ui/formParts';
import { downloadSessionFile } from '../sessionFiles';

/**
 * Download buttons for the task's files (e.g. the CSV dataset). Each file is fetched with the token
 * header and saved through a temporary blob: link, so the token never appears in a URL.
 */
export function MaterialsList({ materials, token }: { materials: MaterialView[]; token: string }) {
  if (materials.length === 0) return null;
  return (
    <div className="materials-block">
      <h3>Materials</h3>
      <ul className="materials">
        {materials.map((material) => (
          <MaterialItem key={material.name} material={material} token={token} />
        ))}
      </ul>
    </div>
  );
}

function MaterialItem({ material, token }: { material: MaterialView; token: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      await downloadSessionFile(material.url, token, material.name);
    } catch (err) {
      setError(`The download failed: ${actionMessageOf(err)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li>
      <button type="button" className="link-button" onClick={() => void download()} disabled={busy} aria-busy={busy}>
        Download {material.name}
      </button>
      {busy && <span className="hint" role="status"> Downloading…</span>}
      {material.description && <span className="hint"> — {material.description}</span>}
      <ErrorAlert message={error} />
    </li>
  );
}
