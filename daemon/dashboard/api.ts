/**
 * The page's data routes beyond the event stream: one call's JSON, a game's toolsets with
 * their schemas, one of its skills, its latest screenshot, its UI tree, and the form's call.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DashboardHost } from './host.js';
import type { ToolsetView } from './view.js';
import { SECURITY_HEADERS, sendJson } from './respond.js';

const MAX_BODY = 256 * 1024;

/** GET /dashboard/api/calls/:id → the recorded call with its arguments and answer. */
export function callRecord(host: DashboardHost, res: ServerResponse, id: number): void {
  const rec = host.state.feed.get(id);
  if (!rec) return sendJson(res, 404, { error: `call ${id} is no longer in the feed (it keeps the last calls only)` });
  sendJson(res, 200, rec);
}

/** GET /dashboard/api/toolsets?port=N → every toolset of the game with each tool's JSON Schema. */
export async function toolsets(host: DashboardHost, res: ServerResponse, port: number): Promise<void> {
  const list = await host.call('list_toolsets', { port }, false);
  if (list.isError) return sendJson(res, 502, { error: text(list) });
  const listed = (list.structuredContent ?? {}) as { toolsets?: unknown; game?: unknown };
  const names = ((listed.toolsets ?? []) as Array<{ name: string }>).map((t) => t.name);
  const out: ToolsetView[] = [];
  for (const toolset of names) {
    const d = await host.call('describe_toolset', { port, toolset }, false);
    const ts = d.structuredContent as
      { toolset?: string; description?: string; tools?: ToolsetView['tools'] } | undefined;
    if (!d.isError && ts)
      out.push({ name: ts.toolset ?? toolset, description: ts.description ?? '', tools: ts.tools ?? [] });
  }
  sendJson(res, 200, { port, game: listed.game ?? null, toolsets: out });
}

/** GET /dashboard/api/screenshot?port=N → the game's PNG, or 204 when it serves none (a 404 would be logged by the page's console as a failed load). */
export async function screenshot(host: DashboardHost, res: ServerResponse, port: number): Promise<void> {
  try {
    // A browser game this daemon opened is pictured by its browser, like the screenshot tool does.
    const web = host.state.launcher.webGame(port);
    const png = web ? await web.screenshot() : await host.state.client(port, 3000).screenshot();
    if (!png) {
      res.writeHead(204, { ...SECURITY_HEADERS, 'cache-control': 'no-store' }).end();
      return;
    }
    res
      .writeHead(200, {
        ...SECURITY_HEADERS,
        'content-type': 'image/png',
        'content-length': png.length,
        'cache-control': 'no-store',
      })
      .end(png);
  } catch (e) {
    sendJson(res, 502, { error: (e as { text?: string }).text ?? String(e) });
  }
}

/** GET /dashboard/api/trace?session=S&port=N → that session's trace on that game, as a file to save (save_trace's page). */
export async function sessionTrace(
  host: DashboardHost,
  res: ServerResponse,
  session: string,
  port: number,
): Promise<void> {
  const html = await host.trace(session, port);
  if (html === undefined)
    return sendJson(res, 404, { error: `session ${session} has recorded nothing on port ${port} (or it has ended)` });
  const name = `trace-${session.replace(/[^\w-]/g, '').slice(0, 8)}-${port}.trace.html`;
  res
    .writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'content-disposition': `attachment; filename="${name}"`,
      'content-length': Buffer.byteLength(html),
      'cache-control': 'no-store',
    })
    .end(html);
}

/** GET /dashboard/api/ui?port=N → the game's UI tree as the snapshot tool renders it, or 404 when it has none. */
export async function uiTree(host: DashboardHost, res: ServerResponse, port: number): Promise<void> {
  const r = await host.call('call_tool', { port, name: 'snapshot' }, false);
  const first = r.content[0];
  const words = first?.type === 'text' ? first.text : '';
  if (r.isError) return sendJson(res, 404, { error: words });
  const snap = (r.structuredContent as { snapshot?: { revision?: number } } | undefined)?.snapshot;
  sendJson(res, 200, { port, text: words, revision: snap?.revision ?? null });
}

/** GET /dashboard/api/skill?port=N&name=S → the skill as its file holds it, for the edit form. */
export async function skillRecord(host: DashboardHost, res: ServerResponse, port: number, name: string): Promise<void> {
  const found = await host.skill(port, name);
  if (!found) return sendJson(res, 404, { error: `the game on port ${port} has no skill '${name}' (any more)` });
  sendJson(res, 200, { port, ...found });
}

/** POST /dashboard/api/call {port, name, arguments} → call_tool's answer, shown in the feed. */
export async function formCall(host: DashboardHost, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!/^application\/json\b/.test(req.headers['content-type'] ?? ''))
    return sendJson(res, 415, { error: 'send JSON' });
  let body: { port?: unknown; name?: unknown; arguments?: unknown };
  try {
    body = JSON.parse(await readBody(req));
  } catch (e) {
    return sendJson(res, 400, { error: `the body is not JSON: ${(e as Error).message}` });
  }
  const args = body.arguments && typeof body.arguments === 'object' ? body.arguments : {};
  const result = await host.call('call_tool', { port: body.port, name: body.name, arguments: args }, true);
  const images = result.content.flatMap((c) => (c.type === 'image' ? [`data:${c.mimeType};base64,${c.data}`] : []));
  sendJson(res, 200, {
    isError: result.isError === true,
    text: text(result),
    json: result.structuredContent ?? null,
    images,
  });
}

function text(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.find((c) => c.type === 'text')?.text ?? '';
}

/** A request's body as text, refused past MAX_BODY. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error(`over ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
