// Test helper: a request body produced on demand, to see how much of it a handler reads.
export const COUNTING_CHUNK_BYTES = 64 * 1024;

/** A body produced on demand, chunk by chunk (like a chunked upload); counts what was pulled and whether it was cancelled. */
export function countingStream(totalBytes: number, chunkBytes = COUNTING_CHUNK_BYTES) {
  const stats = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (stats.pulled >= totalBytes) return controller.close();
        const size = Math.min(chunkBytes, totalBytes - stats.pulled);
        stats.pulled += size;
        controller.enqueue(new Uint8Array(size).fill(0x20));
      },
      cancel() {
        stats.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, stats };
}
