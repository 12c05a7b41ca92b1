import type { MaterialView } from '../../../common/session';
import { withToken } from '../api';

/** Download links for the task's files (e.g. the CSV dataset). */
export function MaterialsList({ materials, token }: { materials: MaterialView[]; token: string }) {
  if (materials.length === 0) return null;
  return (
    <div className="materials-block">
      <h3>Materials</h3>
      <ul className="materials">
        {materials.map((material) => (
          <li key={material.name}>
            <a href={withToken(material.url, token)} download={material.name}>
              Download {material.name}
            </a>
            {material.description && <span className="hint"> — {material.description}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
