/** The annotation guide (docs/annotation-guide.md), loaded whole into the annotator prompt, with its content hash. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const DEFAULT_GUIDE_FILE = resolve(import.meta.dirname, '../../docs/annotation-guide.md');

export interface AnnotationGuide {
  text: string;
  /** sha256 of the guide text; stored with every annotation. */
  hash: string;
  file: string;
}

export function loadAnnotationGuide(file: string = DEFAULT_GUIDE_FILE): AnnotationGuide {
  const text = readFileSync(file, 'utf8');
  return { text, hash: createHash('sha256').update(text).digest('hex'), file };
}
