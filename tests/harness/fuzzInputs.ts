import fc from 'fast-check';
import { clientEvents, MAX_MESSAGE_CHARS_HARD, type ClientEventName } from '../../common/events';
import { JoinRequest, MAX_UPLOAD_BYTES } from '../../common/http';

/**
 * fast-check generators of malformed input for every participant socket event and HTTP body.
 * Each generated case is checked against the schema in common/ and only kept when the schema
 * REJECTS it, so the property "answered with an error, no row written" is exact.
 */

export const EVENT_NAMES = Object.keys(clientEvents) as ClientEventName[];

/** Objects whose OWN keys include __proto__ / constructor / prototype (as JSON.parse builds them). */
const pollutedObject: fc.Arbitrary<unknown> = fc
  .constantFrom(
    '{"__proto__":{"polluted":"yes","isAdmin":true}}',
    '{"constructor":{"prototype":{"polluted":"yes"}}}',
    '{"clientId":"abcdefgh1","text":"hi","clientTs":1,"__proto__":{"polluted":"yes"}}',
    '{"accept":true,"version":"1","clientTs":1,"__proto__":{"accept":false}}',
    '{"fields":{"__proto__":{"polluted":"yes"}},"clientTs":1}',
    '{"answers":{"__proto__":{"polluted":1},"constructor":"x"},"clientTs":1}',
    '{"from":"instructions","clientTs":1,"constructor":{"prototype":{"x":1}}}',
    '{"prototype":{"x":1},"clientTs":1}',
  )
  .map((s) => JSON.parse(s) as unknown);

// Below socket.io's 1 MB packet limit, so the payload reaches validation (a bigger packet just closes the socket).
const hugeString = fc.constantFrom(MAX_MESSAGE_CHARS_HARD + 1, 250_000, 900_000).map((n) => 'x'.repeat(n));

const weirdScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.constantFrom(-1, 1.5, Number.MAX_SAFE_INTEGER + 2, '', ' ', '\u0000', '<script>alert(1)</script>', "'; DROP TABLE messages; --"),
);

/** A plausible payload for each event, used as the base that mutations break. */
export function plausiblePayload(event: ClientEventName): Record<string, unknown> {
  const clientTs = Date.now();
  switch (event) {
    case 'session:state':
      return { clientTs };
    case 'consent:respond':
      return { accept: true, version: '1', clientTs };
    case 'step:advance':
      return { from: 'instructions', clientTs };
    case 'chat:send':
      return { clientId: 'fuzzclient1', text: 'hello', clientTs };
    case 'chat:stop':
      return { clientTs };
    case 'chat:retry':
      return { clientTs };
    case 'artifact:draft':
    case 'artifact:submit':
      return { fields: { answer: 'x' }, clientTs };
    case 'survey:submit':
      return { answers: { q1: 3 }, clientTs };
    case 'telemetry':
      return { kind: 'focus', clientTs };
    case 'telemetry:batch':
      return { clientTs, pastes: [{ target: 'chat', chars: 3, at: clientTs }], away: [], typing: [] };
  }
}

/** Breaks a plausible payload: wrong type, missing field, extra field, huge string, polluted key. */
function mutated(event: ClientEventName): fc.Arbitrary<unknown> {
  const base = plausiblePayload(event);
  const keys = Object.keys(base);
  return fc.oneof(
    fc.record({ key: fc.constantFrom(...keys), value: fc.oneof(weirdScalar, fc.array(fc.integer(), { maxLength: 3 }), fc.object({ maxDepth: 1 })) }).map(({ key, value }) => ({ ...base, [key]: value })),
    fc.constantFrom(...keys).map((key) => {
      const copy = { ...base };
      delete copy[key];
      return copy;
    }),
    fc.record({ key: fc.string({ minLength: 1, maxLength: 12 }), value: weirdScalar }).map(({ key, value }) => ({ ...base, [key]: value })),
    fc.record({ key: fc.constantFrom(...keys), value: hugeString }).map(({ key, value }) => ({ ...base, [key]: value })),
    fc.record({ key: fc.constantFrom(...keys), value: fc.oneof(fc.constant(-5), fc.constant(1e400), fc.constant('2026-01-01')) }).map(({ key, value }) => ({ ...base, [key]: value })),
  );
}

export interface SocketFuzzCase {
  event: string;
  /** Arguments after the event name (the ack callback is added by the sender unless `noAck`). */
  args: unknown[];
  /** Send without an ack callback: the server must not crash calling a missing ack. */
  noAck: boolean;
}

/** One malformed socket emission. Events are the real ones (and a few unknown names). */
export function socketFuzzCase(): fc.Arbitrary<SocketFuzzCase> {
  const payload = (event: ClientEventName) =>
    fc.oneof(
      { weight: 3, arbitrary: mutated(event) },
      { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
      { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
      { weight: 1, arbitrary: pollutedObject },
      { weight: 1, arbitrary: weirdScalar },
    );
  const known = fc.constantFrom(...EVENT_NAMES).chain((event) =>
    fc.record({
      event: fc.constant<string>(event),
      args: fc.oneof({ weight: 5, arbitrary: payload(event).map((p) => [p]) }, { weight: 1, arbitrary: fc.constant<unknown[]>([]) }, { weight: 1, arbitrary: fc.tuple(payload(event), weirdScalar) }),
      noAck: fc.oneof({ weight: 7, arbitrary: fc.constant(false) }, { weight: 3, arbitrary: fc.constant(true) }),
    }),
  );
  const unknown = fc.record({
    event: fc.constantFrom('admin:export', 'session:delete', '__proto__', 'constructor', 'chat:send ', 'x'.repeat(300)),
    args: fc.jsonValue({ maxDepth: 2 }).map((p) => [p]),
    noAck: fc.boolean(),
  });
  return fc.oneof({ weight: 9, arbitrary: known }, { weight: 1, arbitrary: unknown });
}

/**
 * Whether the server's contract accepts this emission (such cases are not malformed and are skipped):
 * the payload is the first argument (session:state may omit it or send null), extra arguments are ignored.
 */
export function schemaAccepts(event: string, args: unknown[]): boolean {
  if (!Object.prototype.hasOwnProperty.call(clientEvents, event)) return false;
  const spec = clientEvents[event as ClientEventName];
  const payload = args[0] == null && event === 'session:state' ? {} : args[0]; // the server reads null/undefined as {}
  return (spec.payload as { safeParse: (x: unknown) => { success: boolean } }).safeParse(payload).success;
}

export interface HttpFuzzCase {
  path: string;
  contentType: string | null;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** Malformed POST /api/join bodies (raw text, so invalid JSON is covered too). */
export function joinFuzzCase(): fc.Arbitrary<HttpFuzzCase> {
  const validish = { studyId: 'travel-planning', params: { participant_label: 'fuzz' } };
  const jsonBody = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    pollutedObject,
    fc.record({ studyId: weirdScalar, params: fc.oneof(weirdScalar, fc.dictionary(fc.string(), weirdScalar, { maxKeys: 5 })) }),
    fc.constant({ ...validish, extra: 1 }),
    fc.constant({ studyId: 'travel-planning' }),
    fc.constant({ studyId: '../../etc/passwd', params: {} }),
    fc.constant({ studyId: 'travel-planning', params: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, 'v'])) }),
    fc.constant({ studyId: 'travel-planning', params: { participant_label: 'y'.repeat(5000) } }),
    fc.constant({ studyId: 'travel-planning', params: JSON.parse('{"__proto__":{"participant_label":"x"}}') }),
  );
  return fc.oneof(
    { weight: 6, arbitrary: jsonBody.filter((b) => !JoinRequest.safeParse(b).success).map((b) => ({ path: '/api/join', contentType: 'application/json', headers: {}, body: JSON.stringify(b) ?? 'null' })) },
    { weight: 2, arbitrary: fc.string({ maxLength: 200 }).filter((s) => !isValidJoinJson(s)).map((s) => ({ path: '/api/join', contentType: 'application/json', headers: {}, body: s })) },
    { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data').map((ct) => ({ path: '/api/join', contentType: ct, headers: {}, body: 'studyId=travel-planning' })) },
    { weight: 1, arbitrary: fc.constant({ path: '/api/join', contentType: 'application/json', headers: {}, body: `{"studyId":"travel-planning","params":{"a":"${'z'.repeat(3_000_000)}"}}` }) },
  );
}

function isValidJoinJson(s: string): boolean {
  try {
    return JoinRequest.safeParse(JSON.parse(s)).success;
  } catch {
    return false;
  }
}

/**
 * Malformed uploads. `token` is a valid participant token whose session has an image field
 * `imageField` and a text field `textField`; every case breaks the contract in one way.
 */
export function uploadFuzzCase(token: string, imageField: string, textField: string): fc.Arbitrary<HttpFuzzCase> {
  const png = Buffer.from('89504e470d0a1a0a', 'hex');
  const q = (field: string) => `/api/session/upload?field=${encodeURIComponent(field)}&name=plot.png`;
  const auth = { authorization: `Bearer ${token}` };
  return fc.oneof(
    // no or wrong token
    fc.constantFrom<Record<string, string>>({}, { authorization: 'Bearer nope' }, { authorization: `Bearer ${token}x` }, { authorization: token }).map((headers): HttpFuzzCase => ({ path: q(imageField), contentType: 'image/png', headers, body: png })),
    // bad query
    fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('../../x', '__proto__', textField, 'no-such-field', '')).map((field) => ({ path: q(field), contentType: 'image/png', headers: auth, body: png })),
    fc.constant({ path: '/api/session/upload', contentType: 'image/png', headers: auth, body: png }),
    fc.constant({ path: `/api/session/upload?field=${imageField}&name=${'n'.repeat(500)}`, contentType: 'image/png', headers: auth, body: png }),
    fc.constant({ path: `/api/session/upload?field=${imageField}&extra=1`, contentType: 'image/png', headers: auth, body: png }),
    // wrong content type
    fc.constantFrom('text/html', 'application/json', 'image/svg+xml', 'application/octet-stream').map((ct) => ({ path: q(imageField), contentType: ct, headers: auth, body: png })),
    // too big, empty, or not the image it claims to be
    fc.constant({ path: q(imageField), contentType: 'image/png', headers: auth, body: Buffer.alloc(MAX_UPLOAD_BYTES + 1, 1) }),
    fc.constant({ path: q(imageField), contentType: 'image/png', headers: auth, body: Buffer.alloc(0) }),
    fc
      .tuple(fc.constantFrom('image/png', 'image/jpeg', 'image/webp', 'image/gif'), fc.uint8Array({ minLength: 1, maxLength: 64 }))
      .map(([ct, bytes]) => ({ path: q(imageField), contentType: ct, headers: auth, body: Buffer.concat([Buffer.from('<svg onload=alert(1)>'), Buffer.from(bytes)]) })),
  );
}

/** Malformed socket handshakes: `auth` of any shape, or a token that is not a participant token. */
export function handshakeFuzzCase(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.anything({ maxDepth: 2 }),
    fc.record({ token: fc.oneof(weirdScalar, fc.string({ minLength: 10, maxLength: 200 }), fc.constant('t'.repeat(5000))) }),
    pollutedObject,
  );
}
