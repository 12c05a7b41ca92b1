export { mean } from './mean';
export { sampleSd } from './sampleSd';
export { averageRanks } from './averageRanks';
export { pearson } from './pearson';
export { spearman, correlationTTestP, type Correlation } from './spearman';
export { studentTTwoSidedP } from './studentTTwoSidedP';
export { normalCdf } from './normalCdf';
