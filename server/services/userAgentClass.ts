import type { BrowserFamily, DeviceClass } from '../../common/telemetrySummary';

/**
 * The coarse class of a User-Agent header: device (desktop / mobile / tablet) and browser family. Only
 * the class is stored; the raw string (which narrows down who someone is) never reaches the database.
 * Order matters: Edge, Opera and Samsung Internet also say "Chrome", Chrome also says "Safari".
 */
export function classifyUserAgent(ua: string | undefined): { device: DeviceClass; browser: BrowserFamily } {
  if (!ua) return { device: 'unknown', browser: 'unknown' };
  const browser: BrowserFamily = /Edg(e|A|iOS)?\//.test(ua)
    ? 'edge'
    : /OPR\/|Opera/.test(ua)
      ? 'opera'
      : /SamsungBrowser\//.test(ua)
        ? 'samsung'
        : /Firefox\/|FxiOS\//.test(ua)
          ? 'firefox'
          : /Chrome\/|Chromium\/|CriOS\//.test(ua)
            ? 'chrome'
            : /Safari\//.test(ua) && /Version\//.test(ua)
              ? 'safari'
              : 'other';
  const device: DeviceClass = /iPad|Tablet|PlayBook|Silk/.test(ua) || (/Android/.test(ua) && !/Mobile/.test(ua))
    ? 'tablet'
    : /Mobi|iPhone|iPod|Android|Windows Phone/.test(ua)
      ? 'mobile'
      : /Windows NT|Macintosh|X11|Linux|CrOS/.test(ua)
        ? 'desktop'
        : 'unknown';
  return { device, browser };
}
