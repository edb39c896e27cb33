// @ts-check
// sessions.js runs the buttons of the sessions page: Delete and Restore
// call the sessions API, then the page reloads to show the result; the API's
// error is shown on the page.

import { maybeId } from './dom.js';

const failure = maybeId('action-error', HTMLElement);

/**
 * act sends method to url, then reloads the page, or shows the API's error.
 * @param {string} method
 * @param {string} url
 */
async function act(method, url) {
  try {
    const resp = await fetch(url, { method });
    if (resp.ok) {
      location.reload();
      return;
    }
    const reply = await resp.json().catch(() => ({}));
    show(reply.error ?? `${resp.status} ${resp.statusText}`);
  } catch (ex) {
    show('could not reach the server: ' + (ex instanceof Error ? ex.message : ex));
  }
}

/** @param {string} text */
function show(text) {
  if (!failure) return;
  failure.textContent = text;
  failure.hidden = false;
}

document.addEventListener('click', (e) => {
  const b = e.target instanceof Element ? e.target.closest('button[data-delete], button[data-restore]') : null;
  if (!(b instanceof HTMLButtonElement)) return;
  b.disabled = true;
  if (b.dataset.delete) act('DELETE', '/api/sessions/' + encodeURIComponent(b.dataset.delete));
  else act('POST', '/api/sessions/' + encodeURIComponent(b.dataset.restore ?? '') + '/restore');
});
