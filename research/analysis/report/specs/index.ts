export { quadrantScatterSpec, type QuadrantPoint } from './quadrantScatter';
export { costByQualitySpec, type CostPoint } from './costByQuality';
export { probingByQuartileSpec, type QuartileRate } from './probingByQuartile';
export { agreementHeatmapSpec } from './agreementHeatmap';
export { specsFromSummary } from './fromSummary';
export { quadrantScatterPages } from './quadrantScatter';
export { costByQualityPages, type CostLevel } from './costByQuality';
export { featuresByQuartileSpec, fig4Bars, type QuartileBar } from './featuresByQuartile';
export { conditionsByTaskPages, type ConditionPoint } from './conditionsByTask';
