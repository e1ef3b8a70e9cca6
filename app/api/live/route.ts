// Live updates for open pages: a server-sent event `tick` (`{"id":…,"finishedAt":"…"}`) each time
// a scheduler tick finishes, whichever replica ran it (server/services/live-ticks.ts), and a
// comment every 25 s so proxies keep the connection. Pages then refetch what they show; they poll
// as well, so a page behind a proxy that buffers streams still follows. Needs a session or token.
import { getDb } from '@/db/client';
import { resolveRequestActor } from '@/server/auth/resolve-request-actor';
import { withApiHeaders } from '@/server/http/security-headers';
import { watchFinishedTicks } from '@/server/services/live-ticks';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const KEEP_ALIVE_MS = 25_000;

export const GET = withApiHeaders(async (req: Request): Promise<Response> => {
  const db = getDb();
  const { actor } = await resolveRequestActor(db, req);
  if (!actor || actor.permission) {
    return Response.json({ error: { message: 'live updates need a session or an API token' } }, { status: 401 });
  }
  const encoder = new TextEncoder();
  let close = () => undefined as void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          close();
        }
      };
      // the client reconnects after this long if the stream drops
      send('retry: 3000\n\n');
      const unsubscribe = watchFinishedTicks(db, (tick) => send(`event: tick\ndata: ${JSON.stringify(tick)}\n\n`));
      const keepAlive = setInterval(() => send(': keep-alive\n\n'), KEEP_ALIVE_MS);
      close = () => {
        clearInterval(keepAlive);
        unsubscribe();
        try {
          controller.close();
        } catch {
          // already closed
        }
      };
      req.signal.addEventListener('abort', () => close(), { once: true });
    },
    cancel() {
      close();
    },
  });
  return new Response(body, {
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'x-accel-buffering': 'no', connection: 'keep-alive' },
  });
});
