// The byte-counting body reader: limits hold for chunked bodies and lying content-lengths, and
// reading stops as soon as the limit is passed.
import { describe, expect, it } from 'vitest';
import { readLimitedBody, withBufferedBody } from './read-limited-body';
import { COUNTING_CHUNK_BYTES, countingStream } from './testing/counting-stream';

const CHUNK = COUNTING_CHUNK_BYTES;

function post(body: ReadableStream<Uint8Array> | string, headers: Record<string, string> = {}) {
  return new Request('http://fleet.test/x', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);
}

describe('readLimitedBody', () => {
  it('reads a chunked body without content-length up to the limit', async () => {
    const { stream } = countingStream(3 * CHUNK + 10);
    const read = await readLimitedBody(post(stream), 3 * CHUNK + 10);
    expect(read.ok).toBe(true);
    expect(read.ok && read.bytes.byteLength).toBe(3 * CHUNK + 10);
  });

  it('stops reading and cancels the stream as soon as a chunked body passes the limit', async () => {
    const { stream, stats } = countingStream(1024 * 1024 * 1024); // 1 GB offered
    const read = await readLimitedBody(post(stream), 2 * 1024 * 1024);
    expect(read.ok).toBe(false);
    expect(stats.cancelled).toBe(true);
    expect(stats.pulled).toBeLessThanOrEqual(2 * 1024 * 1024 + CHUNK);
  });

  it('refuses a declared content-length over the limit without reading a byte', async () => {
    const { stream, stats } = countingStream(10 * CHUNK);
    const read = await readLimitedBody(post(stream, { 'content-length': String(10 * CHUNK) }), CHUNK);
    expect(read.ok).toBe(false);
    expect(stats.pulled).toBe(0);
  });

  it('counts bytes even when content-length understates them', async () => {
    const { stream, stats } = countingStream(10 * CHUNK);
    const read = await readLimitedBody(post(stream, { 'content-length': '5' }), CHUNK);
    expect(read.ok).toBe(false);
    expect(stats.pulled).toBeLessThanOrEqual(2 * CHUNK);
  });

  it('limit 0 accepts no body at all and refuses one byte', async () => {
    expect((await readLimitedBody(new Request('http://fleet.test/x'), 0)).ok).toBe(true);
    expect((await readLimitedBody(post('x'), 0)).ok).toBe(false);
  });
});

describe('withBufferedBody', () => {
  it('gives the same request with the buffered bytes, headers kept, length corrected', async () => {
    const original = post(countingStream(100).stream, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    const bytes = new TextEncoder().encode('{"a":1}');
    const again = withBufferedBody(original, bytes);
    expect(again.method).toBe('POST');
    expect(again.url).toBe('http://fleet.test/x');
    expect(again.headers.get('content-type')).toBe('application/json');
    expect(again.headers.get('content-length')).toBe('7');
    expect(again.headers.get('transfer-encoding')).toBeNull();
    expect(await again.json()).toEqual({ a: 1 });
  });
});
