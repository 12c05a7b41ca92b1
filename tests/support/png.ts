/** Test helper: small valid PNG files (8-bit RGB), so uploads carry real image bytes a browser decodes. */
import { deflateSync } from 'node:zlib';

type Rgb = readonly [number, number, number];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A PNG whose pixel (x, y) has the colour `pixel(x, y)`. */
export function encodePng(width: number, height: number, pixel: (x: number, y: number) => Rgb): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type RGB
  const rows = Buffer.alloc((width * 3 + 1) * height); // each row: filter byte 0, then RGB triples
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rows.set(pixel(x, y), y * (width * 3 + 1) + 1 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A small solid grey PNG. */
export function tinyPng(width = 4, height = 4): Buffer {
  return encodePng(width, height, () => [0x80, 0x80, 0x80]);
}

/** A PNG with a light gradient background and a red diagonal line, like a tiny plot. */
export function plotPng(width: number, height: number): Buffer {
  return encodePng(width, height, (x, y) => {
    const onLine = Math.abs(height - 1 - y - Math.round((x * (height - 1)) / (width - 1))) <= 1;
    return onLine ? [200, 30, 30] : [240, 240 - Math.round((y / height) * 60), 255];
  });
}
