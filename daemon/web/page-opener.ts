/**
 * The first look at a new browser's tab, over a plain CDP session (`ws`, flattened) opened
 * before playwright-core is attached: it turns on the page's error reporting, sets the
 * viewport and starts the navigation, so the page loads while playwright attaches (about
 * 1.5 s) and nothing the page throws or logs at load is lost (playwright only sees what
 * happens after it attached). The session stays open while the browser runs: the viewport
 * override belongs to it, and closing it would put the page back to the window's size.
 *
 *   const opener = await openTab(wsEndpoint, viewport, onLine);
 *   await opener.navigate(url, timeoutMs)   rejects with the browser's error text
 *   opener.handOver()                       playwright took over: lines are no longer reported
 *   opener.close()
 */
import { WebSocket } from 'ws';

export interface TabOpener {
  navigate(url: string, timeoutMs: number): Promise<void>;
  /** The page's errors seen so far ("uncaught …", "console.error: …", "failed to load …"). */
  errors(): string[];
  handOver(): void;
  close(): void;
}

interface Message {
  id?: number;
  method?: string;
  sessionId?: string;
  params?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  result?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  error?: { message: string };
}

/**
 * Attaches to the browser's first tab and reports its errors and console lines to `onLine`
 * (`isError` for the ones a failure's text should name) until handOver().
 */
export async function openTab(
  wsEndpoint: string,
  viewport: { width: number; height: number },
  onLine: (line: string, isError: boolean) => void,
  timeoutMs = 30_000,
): Promise<TabOpener> {
  // A browser that dies or stalls before its tab is set up must fail the launch, not hang it.
  const ws = new WebSocket(wsEndpoint, {
    perMessageDeflate: false,
    maxPayload: 256 * 1024 * 1024,
    handshakeTimeout: timeoutMs,
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the tab was not ready within ${timeoutMs} ms`)), timeoutMs);
  });
  late.catch(() => undefined);
  const closed = new Promise<never>((_, reject) =>
    ws.once('close', () => reject(new Error('the browser closed its DevTools connection'))),
  );
  closed.catch(() => undefined);
  try {
    return await Promise.race([setUp(ws, viewport, onLine), late, closed]);
  } catch (e) {
    ws.terminate();
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

/** The CDP conversation that attaches to the first tab (openTab bounds it in time). */
async function setUp(
  ws: WebSocket,
  viewport: { width: number; height: number },
  onLine: (line: string, isError: boolean) => void,
): Promise<TabOpener> {
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let nextId = 0;
  const pending = new Map<number, { resolve: (m: Message) => void; reject: (e: Error) => void }>();
  const waiters: Array<(m: Message) => boolean> = [];
  const errors: string[] = [];
  let reporting = true;
  const report = (line: string, isError: boolean) => {
    if (!reporting) return;
    if (isError) errors.push(line);
    onLine(line, isError);
  };
  ws.on('message', (raw) => {
    let m: Message;
    try {
      m = JSON.parse(raw.toString()) as Message;
    } catch {
      return; // not CDP: nothing to report
    }
    if (m.id !== undefined) {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.error) p?.reject(new Error(m.error.message));
      else p?.resolve(m);
      return;
    }
    for (let i = waiters.length - 1; i >= 0; i--) if (waiters[i](m)) waiters.splice(i, 1);
    onEvent(m, report);
  });
  ws.on('close', () => {
    for (const p of pending.values()) p.reject(new Error('the browser closed its DevTools connection'));
    pending.clear();
  });
  const send = (method: string, params: object = {}, sessionId?: string) =>
    new Promise<Message>((resolve, reject) => {
      if (ws.readyState !== WebSocket.OPEN) return reject(new Error('the browser closed its DevTools connection'));
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params, sessionId }));
    });
  // The first tab may not exist yet when the DevTools port is written: discovery reports it when it does.
  const tab = new Promise<string>((resolve) =>
    waiters.push((m) => {
      const info = m.method === 'Target.targetCreated' ? m.params?.targetInfo : undefined;
      if (info?.type !== 'page') return false;
      resolve(info.targetId as string);
      return true;
    }),
  );
  await send('Target.setDiscoverTargets', { discover: true });
  const targetId = await tab;
  const { result } = await send('Target.attachToTarget', { targetId, flatten: true });
  const sessionId = result!.sessionId as string;
  await Promise.all([
    send('Runtime.enable', {}, sessionId),
    send('Log.enable', {}, sessionId),
    send('Emulation.setDeviceMetricsOverride', { ...viewport, deviceScaleFactor: 1, mobile: false }, sessionId),
  ]);
  return {
    async navigate(url, timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        const { result: nav } = await Promise.race([send('Page.navigate', { url }, sessionId), late]);
        if (nav?.errorText) throw new Error(nav.errorText as string);
      } finally {
        clearTimeout(timer);
      }
    },
    errors: () => [...errors],
    handOver: () => {
      // The session stays (it holds the viewport); its events stop, so a page that logs every
      // frame is not reported twice.
      reporting = false;
      send('Runtime.disable', {}, sessionId).catch(() => undefined);
      send('Log.disable', {}, sessionId).catch(() => undefined);
    },
    close: () => ws.close(),
  };
}

// Runtime and Log events as the lines playwright's page events give (browser.ts wrap()).
function onEvent(m: Message, report: (line: string, isError: boolean) => void): void {
  const p = m.params;
  if (m.method === 'Runtime.exceptionThrown') {
    const d = p?.exceptionDetails;
    const first = String(d?.exception?.description ?? d?.exception?.value ?? d?.text ?? 'error').split('\n')[0];
    report(`uncaught ${first}`, true);
  } else if (m.method === 'Runtime.consoleAPICalled') {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const text = (p?.args ?? []).map((a: any) => a.value ?? a.unserializableValue ?? a.description ?? '').join(' ');
    report(`console.${p?.type}: ${text}`, p?.type === 'error');
  } else if (m.method === 'Log.entryAdded' && p?.entry?.level === 'error' && p.entry.source === 'network') {
    report(`failed to load ${p.entry.url ?? ''}: ${p.entry.text}`, true);
  }
}
