/**
 * The study-link parameter with which `npm run simulate --agent-participants` marks its sessions as simulated
 * (sessions.simulated, sessions.csv `simulated`). The server honours it only while the study's status is pilot, so a
 * participant of a live study cannot flag themselves out of the analysis.
 */
export const SIMULATED_PARAM = 'tandem_simulated';
