// Type-level test of @mnote/pageai/live, compiled by package.test.mjs under bundler and node10 resolution
// (with the DOM's WebSocket and fetch types). A line marked @ts-expect-error must stay an error.
import { connectLive, type LiveConnection, type LiveOptions, type LiveStatus } from "@mnote/pageai/live";

// A server outside a browser: a credential in headers, and a WebSocket class that sends them.
declare const WebSocketWithHeaders: new (
  url: string,
  protocols?: string | string[],
  options?: { headers: Record<string, string> },
) => WebSocket;
const options: LiveOptions = {
  documentId: "doc",
  url: "http://127.0.0.1:8787",
  headers: { authorization: "Bearer token" },
  WebSocket: WebSocketWithHeaders,
  onStatus: (status: LiveStatus) => void status.state,
};
const connection: LiveConnection = connectLive(options);
const seq: number | undefined = connection.lastSeq;
void seq;
connection.close();

// @ts-expect-error a document is required
connectLive({ url: "http://127.0.0.1:8787" });
// @ts-expect-error headers are strings
connectLive({ documentId: "doc", headers: { authorization: 1 } });
