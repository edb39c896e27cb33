// @ts-check
// traces.js uploads a trace file from the traces page (/traces) to
// POST /api/traces and shows a refusal with its line number.

import { byId } from './dom.js';

const form = byId('trace-form', HTMLFormElement);
const err = byId('trace-error', HTMLElement);

form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  err.hidden = true;
  const data = new FormData(form);
  if (!data.get('name')) data.delete('name');
  if (!data.get('format')) data.delete('format');
  const res = await fetch('/api/traces', { method: 'POST', body: data });
  if (res.status === 201) {
    location.reload();
    return;
  }
  /** @type {import('./types/interplab').ApiError} */
  const body = await res.json().catch(() => ({ error: res.statusText }));
  const prefix = body.line && !body.error.startsWith(`line ${body.line}`) ? `line ${body.line}: ` : '';
  err.textContent = prefix + body.error;
  err.dataset.line = String(body.line ?? '');
  err.hidden = false;
});
