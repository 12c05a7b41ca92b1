import { startServer, type RunningServer, type StartServerOptions } from '../server/app';
import { loadConfig, type LoadedConfig } from '../lib/studyFiles/studyConfig';
import { studyChecksOf } from '../server/plugins';
import { tandemPlugins, teamworkSeatPlugin } from './plugins';

/** The whole platform: the participant runtime with every plug-in (unless `options.plugins` names others). */
export function startTandem(options: StartServerOptions): Promise<RunningServer> {
  return startServer({ plugins: tandemPlugins(), ...options });
}

/** Loads study and survey files with every check the server runs at start-up (the teamwork seat's included). */
export function loadTandemConfig(dirs: Parameters<typeof loadConfig>[0]): LoadedConfig {
  return loadConfig(dirs, studyChecksOf([teamworkSeatPlugin]));
}
