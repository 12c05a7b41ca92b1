/**
 * A temp copy of the visualization study, its survey and its plan (studies/visualization.prereg.yaml), so a
 * test can edit the files (a system prompt, the plan) the way a researcher would after a lock.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type LoadedConfig } from '../../lib/studyFiles/studyConfig';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface StudyFilesCopy {
  studiesDir: string;
  surveysDir: string;
  studyFile: string;
  planFile: string;
  load(): LoadedConfig;
  /** Replaces `from` by `to` in a file of the copy (throws when `from` is not there, so a test cannot edit nothing). */
  edit(file: string, from: string | RegExp, to: string): void;
  remove(): void;
}

export function copyVisualizationStudy(): StudyFilesCopy {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-prereg-files-'));
  const studiesDir = path.join(root, 'studies');
  const surveysDir = path.join(root, 'surveys');
  fs.mkdirSync(path.join(studiesDir, 'materials'), { recursive: true });
  fs.mkdirSync(surveysDir);
  fs.copyFileSync(path.join(ROOT, 'studies/visualization.yaml'), path.join(studiesDir, 'visualization.yaml'));
  fs.copyFileSync(path.join(ROOT, 'studies/visualization.prereg.yaml'), path.join(studiesDir, 'visualization.prereg.yaml'));
  fs.cpSync(path.join(ROOT, 'studies/materials/visualization'), path.join(studiesDir, 'materials/visualization'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'surveys/visualization-post.yaml'), path.join(surveysDir, 'visualization-post.yaml'));
  return {
    studiesDir,
    surveysDir,
    studyFile: path.join(studiesDir, 'visualization.yaml'),
    planFile: path.join(studiesDir, 'visualization.prereg.yaml'),
    load: () => loadConfig({ studiesDir, surveysDir }),
    edit(file, from, to) {
      const text = fs.readFileSync(file, 'utf8');
      const next = text.replace(from, to);
      if (next === text) throw new Error(`nothing to replace in ${file}`);
      fs.writeFileSync(file, next);
    },
    remove: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}
