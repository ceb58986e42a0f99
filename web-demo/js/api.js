// Requests to the Worker. Failures become ApiError with the server's coded body ({code, message, hint}).

/** An answer that was not 2xx, or no answer at all. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `request failed with status ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.code = body?.code ?? (status === 0 ? "network_error" : `http_${status}`);
    this.hint = body?.hint ?? (status === 0 ? "is the Worker running? start it with `make dev`" : "");
  }
}

// Every API route needs a session. Under `make dev` (MNOTE_DEV_AUTO_LOGIN=true) the Worker signs this
// same-origin page in without a token; elsewhere sign in with POST /api/auth/login {token} first.
let signedIn = null;
const signIn = () =>
  (signedIn ??= fetch("/api/auth/dev-login", { method: "POST", credentials: "same-origin" })
    // Read the body: an unread one stays open, and leaving the page would abort it mid-load.
    .then((r) => r.text())
    .catch(() => null));

async function request(path, init = {}) {
  await signIn();
  let response;
  try {
    response = await fetch(path, {
      credentials: "same-origin",
      ...init,
      headers: { accept: "application/json", ...init.headers },
    });
  } catch {
    throw new ApiError(0, null);
  }
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

/** The page of a document, as JSON. */
export const fetchDocument = (documentId) => request(`/api/documents/${encodeURIComponent(documentId)}`);

/** Replaces the page of a document; answers the stored page (the server assigns the revision). */
export const putDocument = (documentId, page) =>
  request(`/api/documents/${encodeURIComponent(documentId)}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(page),
  });
