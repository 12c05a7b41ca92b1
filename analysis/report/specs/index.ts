export { quadrantScatterSpec, type QuadrantPoint } from './quadrantScatter';
export { costByQualitySpec, type CostPoint } from './costByQuality';
export { probingByQuartileSpec, type QuartileRate } from './probingByQuartile';
export { agreementHeatmapSpec } from './agreementHeatmap';
export { specsFromSummary } from './fromSummary';
