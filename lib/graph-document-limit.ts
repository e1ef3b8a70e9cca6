// The size limit of an update-graph document, shared by the upload form (checks before sending),
// the upload route and tRPC input, the graph service and the graph parser's limits.

/** Largest graph document accepted (bytes of UTF-8). Real single-channel responses are ~0.1–3 MB. */
export const MAX_GRAPH_BYTES = 20 * 1024 * 1024;
