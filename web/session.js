// @ts-check
// session.js adds saved sessions to the lab page: the Save dialog, the
// Compare link and its picker, and, on a session page (/s/{id}), live sync
// with every other tab and game on the session (sync.js).

import { byId, maybeId } from './dom.js';
import { Sync, syncURL } from './sync.js';
import { watchClients } from './clients.js';
import { presetValues, shareQuery, mirror } from './url.js';
import { fromJSON, show } from './format.js';

/**
 * @typedef {import('./types/interplab').Interplab} Interplab
 * @typedef {import('./types/interplab').Param} Param
 * @typedef {import('./types/interplab').Revision} Revision
 * @typedef {import('./types/interplab').Session} SessionJSON
 * @typedef {import('./types/interplab').ApiError} ApiError
 * @typedef {{engine: Interplab, params: Param[], values: () => Float64Array, query: () => string | undefined,
 *   set: (name: string, value: number) => void, watch: (f: () => void) => void,
 *   scenarioText: () => string, applyScenario: (text: string) => string}} Page
 *   what the session features need of the lab page
 * @typedef {{id: string, rev: number, live: boolean}} PageSession the session a page shows
 * @typedef {{name: string, notes: string, settings: Record<string, number | boolean | string | string[]>}} SaveBody
 * @typedef {{update: () => void, revisions: (id: string, list: SessionJSON['revisions']) => void}} Compare
 */

const MAX_COMPARED = 7; // besides the current settings: /compare takes 2 to 8 variants

/**
 * initSession wires the page's session features to the lab.
 * @param {Page} page the lab: engine (the interplab object), params,
 *   values() (stored units, table order), query() (the share query),
 *   set(name, value) (applied as a designer's change), watch(f) (f() after
 *   every change of the settings), scenarioText() (the custom scenario's
 *   text when it runs, else ""), applyScenario(text) (runs it; "" or the
 *   engine's error)
 * @returns {{session: PageSession | null, sync: Sync | null,
 *   capture: {link: () => string, saved: () => Float64Array} | null}} capture:
 *   on a session's page, what a capture says of it: the link to the
 *   revision shown with the unsaved changes, and the revision's values
 */
export function initSession(page) {
  const el = maybeId('session', HTMLElement);
  const session = el && {
    id: el.dataset.id ?? '',
    rev: Number(el.dataset.rev),
    live: el.dataset.live === 'true',
  };
  wireSave(page, session);
  const compare = wireCompare(page);
  let sync = null;
  const unsaved = el && session ? wireUnsaved(page, el) : null;
  if (session?.live) {
    const hooks = {
      params: page.params,
      values: page.values,
      set: page.set,
      format: (/** @type {string} */ name, /** @type {number} */ v) => page.engine.format(name, v),
      parse: (/** @type {string} */ name, /** @type {string} */ text) => page.engine.parse(name, text),
      // The page's unsaved changes survive the server forgetting them (a reload).
      saved: unsaved ? () => unsaved.values() : undefined,
    };
    sync = new Sync(syncURL(session.id), hooks, {
      state: showState,
      error: showSyncError,
      rev: (rev) => refresh(session, rev, compare),
    }, session.rev);
    sync.start();
    const clients = maybeId('clients', HTMLDetailsElement);
    if (clients) watchClients(session.id, clients);
  }
  const s = sync;
  page.watch(() => {
    s?.local();
    compare.update();
    unsaved?.update();
  });
  if (el && unsaved) applyEdits(page, el);
  savedHook = unsaved;
  const capture = session && unsaved ? {
    link: () => {
      const q = unsaved.edits();
      return `${location.origin}/s/${encodeURIComponent(session.id)}/r/${session.rev}` + (q ? '?' + q : '');
    },
    saved: () => unsaved.values(),
  } : null;
  return { session, sync, capture };
}

/** @type {{update: () => void, saved: (settings: Record<string, unknown>) => void} | null} the session page's unsaved marker */
let savedHook = null;

/**
 * settingsValues reads the settings of the sessions API (vocabulary keys,
 * JSON types) as values in table order; keys left out keep the defaults.
 * @param {Page} page
 * @param {Record<string, unknown>} settings
 */
function settingsValues(page, settings) {
  return Float64Array.from(page.params, (p) => {
    const v = settings[p.name];
    if (v === undefined) return p.default;
    const r = fromJSON(page.engine, p.name, v);
    return r.error ? p.default : r.value;
  });
}

/**
 * copyText puts text on the clipboard and says so beside Copy link
 * (#copied, which keeps the text in data-text).
 * @param {string} text
 */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const t = Object.assign(document.createElement('textarea'), { value: text });
    document.body.appendChild(t);
    t.select();
    document.execCommand('copy');
    t.remove();
  }
  const c = byId('copied', HTMLElement);
  c.dataset.text = text;
  c.title = text;
  c.hidden = false;
  setTimeout(() => (c.hidden = true), 1500);
}

/**
 * wireUnsaved shows, on a session page, whether the settings differ from
 * the saved revision (#unsaved, and a • before the title), and asks before
 * leaving the page with unsaved changes.
 *
 * A session's links name it: its address is /s/ID (the live session) or
 * /s/ID/r/N (a revision) with only the unsaved changes as a query, and
 * Copy link copies the bare name, so a link opened after the session moved
 * on shows where it is, never the values it had as edits that a save would
 * write back over a colleague's. "Copy link with my unsaved changes" (shown
 * while there are some) copies the name with those changes, and only them.
 * @param {Page} page
 * @param {HTMLElement} el the session bar
 */
function wireUnsaved(page, el) {
  let saved = presetValues(page.engine, page.params, el.dataset.saved ?? '');
  let savedText = new URLSearchParams(el.dataset.saved ?? '').get('scenarioText') ?? '';
  const marker = byId('unsaved', HTMLElement);
  // edits is the unsaved changes as a query: each setting that differs from
  // the saved revision, and the custom scenario's text when it does.
  const edits = () => {
    let q = shareQuery(page.engine, page.params, '', saved, page.values());
    const text = page.scenarioText();
    if (text !== '' && text !== savedText) q += (q ? '&' : '') + 'scenarioText=' + encodeURIComponent(text);
    return q;
  };
  // unsaved tells, from the edits query q, whether the page differs from the
  // saved revision: q holds every setting that does, and the scenario's text
  // unless it was cleared.
  const unsaved = (/** @type {string} */ q) => q !== '' || page.scenarioText() !== savedText;
  const dirty = () => unsaved(edits());
  const copy = byId('copy-link', HTMLButtonElement);
  copy.title = el.dataset.live === 'true'
    ? 'Copy a link to this session: it opens on the session as it is then, never on these values'
    : 'Copy a link to this revision';
  const withEdits = Object.assign(document.createElement('button'), {
    type: 'button', id: 'copy-link-edits', textContent: 'Copy link with my unsaved changes', hidden: true,
    title: "Copy this session's link with your unsaved changes, and only those, to be applied as unsaved changes where it is opened",
  });
  copy.after(withEdits);
  withEdits.addEventListener('click', () => {
    const q = edits();
    copyText(location.origin + location.pathname + (q ? '?' + q : ''));
  });
  const update = () => {
    const q = edits();
    const d = unsaved(q);
    marker.hidden = !d;
    withEdits.hidden = !d;
    el.dataset.unsaved = String(d);
    document.title = (d ? '• ' : '') + document.title.replace(/^• /, '');
    mirror(q);
  };
  window.addEventListener('beforeunload', (e) => {
    if (!dirty()) return;
    e.preventDefault();
    e.returnValue = ''; // older browsers need it set to prompt
  });
  update();
  return {
    update,
    edits,
    values: () => saved,
    /** @param {Record<string, unknown>} settings the settings just saved, as the sessions API gives them */
    saved: (settings) => {
      saved = settingsValues(page, settings);
      savedText = typeof settings.scenarioText === 'string' ? settings.scenarioText : '';
      update();
    },
  };
}

/**
 * applyEdits applies the settings the address asked for (/s/ID?loss=20, 20 %,
 * read by the server into data-edits) as the designer's unsaved changes,
 * and says so.
 * @param {Page} page
 * @param {HTMLElement} el the session bar
 */
function applyEdits(page, el) {
  const edits = [...new URLSearchParams(el.dataset.edits ?? '')];
  if (edits.length === 0) return;
  // The first change clears the link's errors from the page: keep what the
  // query asked for that the engine refused, for the notice.
  const refused = [...document.querySelectorAll('#error-list li')].map((li) => li.textContent ?? '');
  const shown = [];
  for (const [name, text] of edits) {
    if (name === 'scenarioText') {
      const err = page.applyScenario(text);
      if (err) refused.push(err);
      else shown.push('the custom scenario');
      continue;
    }
    const r = page.engine.parse(name, text);
    if (r.error) continue;
    page.set(name, r.value);
    const p = page.params.find((q) => q.name === name);
    shown.push(`${name} = ${p ? show(page.engine, p, r.value) : page.engine.format(name, r.value)}`);
  }
  if (shown.length === 0) return;
  const notice = byId('edits-notice', HTMLElement);
  notice.textContent = `Applied from the address as unsaved changes: ${shown.join(', ')}. Save to keep them.` +
    (refused.length ? ` Not applied: ${refused.join('; ')}.` : '');
  notice.hidden = false;
}

/**
 * settingsJSON is the page's settings as the sessions API takes them: the
 * vocabulary's keys, JSON types as in the export.
 * @param {Page} page
 * @returns {SaveBody['settings']}
 */
export function settingsJSON(page) {
  const values = page.values();
  /** @type {SaveBody['settings']} */
  const out = {};
  page.params.forEach((p, i) => {
    const text = page.engine.format(p.name, values[i]);
    switch (p.kind) {
      case 'bool':
        out[p.name] = text === 'true';
        break;
      case 'enum':
        out[p.name] = text;
        break;
      case 'set':
        out[p.name] = text.split(',');
        break;
      default:
        out[p.name] = values[i]; // stored units, as the API's numbers are
    }
  });
  const scenario = page.scenarioText();
  if (scenario !== '') out.scenarioText = scenario; // the custom scenario's text, with scenario = custom
  return out;
}

/**
 * wireSave runs the Save dialog: POST a new session on a plain page, PUT a
 * new revision on a session page, over the revision the page has (rev);
 * the API's errors are shown in the dialog, and a save refused because the
 * session moved on (409) opens the conflict view instead of overwriting.
 * @param {Page} page
 * @param {PageSession | null} session
 */
function wireSave(page, session) {
  const dialog = byId('save-dialog', HTMLDialogElement);
  const form = byId('save-form', HTMLFormElement);
  const err = byId('save-error', HTMLElement);
  const name = byId('save-name', HTMLInputElement);
  const notes = byId('save-notes', HTMLTextAreaElement);
  const submit = byId('save-submit', HTMLButtonElement);
  /**
   * @param {string} text
   * @param {string} field
   */
  const showError = (text, field) => {
    err.textContent = text;
    err.hidden = text === '';
    name.toggleAttribute('aria-invalid', field === 'name');
    notes.toggleAttribute('aria-invalid', field === 'notes');
  };
  byId('save', HTMLButtonElement).addEventListener('click', () => {
    showError('', '');
    dialog.showModal();
  });
  byId('save-cancel', HTMLButtonElement).addEventListener('click', () => dialog.close());
  /**
   * save sends body, a new revision over rev on a session page; it tells
   * whether the dialog may close.
   * @param {SaveBody} body
   * @param {number | undefined} rev
   * @returns {Promise<boolean>}
   */
  const save = async (body, rev) => {
    const url = session ? '/api/sessions/' + session.id : '/api/sessions';
    submit.disabled = true;
    try {
      const resp = await fetch(url, {
        method: session ? 'PUT' : 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(session ? { ...body, rev } : body),
      });
      /** @type {Revision & ApiError} */
      const reply = await resp.json().catch(() => ({ error: `${resp.status} ${resp.statusText}` }));
      if (resp.status === 409 && reply.current && session) {
        dialog.close();
        showConflict(page, session, body, reply.current, save);
        return false;
      }
      if (!resp.ok) {
        showError(reply.error ?? `${resp.status} ${resp.statusText}`, reply.field ?? '');
        return false;
      }
      if (!session || !session.live) {
        // A new session, or a revision saved from an old one: open it live.
        location.assign('/s/' + reply.id);
        return true;
      }
      session.rev = reply.rev;
      dialog.close();
      showSaved(reply);
      showSaveStatus(reply.unchanged ? `nothing changed: still rev ${reply.rev}` : `saved as rev ${reply.rev}`);
      return true;
    } catch (ex) {
      showError('could not reach the server: ' + (ex instanceof Error ? ex.message : ex), '');
      return false;
    } finally {
      submit.disabled = false;
    }
  };
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    await save({ name: name.value, notes: notes.value, settings: settingsJSON(page) }, session?.rev);
  });
}

/**
 * showConflict shows what the latest revision (current) has against what
 * was being saved (mine), setting by setting, with the name and the notes:
 * "Keep mine" saves mine over the latest revision, "Take theirs" puts the
 * latest revision's settings, name and notes in the page.
 * @param {Page} page
 * @param {PageSession} session
 * @param {SaveBody} mine
 * @param {Revision} current
 * @param {(body: SaveBody, rev: number) => Promise<boolean>} save
 */
function showConflict(page, session, mine, current, save) {
  const dialog = byId('conflict-dialog', HTMLDialogElement);
  byId('conflict-what', HTMLElement).textContent =
    `Revision ${current.rev} ("${current.name}", ${String(current.time).slice(0, 16).replace('T', ' ')} UTC) ` +
    `was saved after revision ${session.rev}, the one you edited. Nothing was overwritten.`;
  const rows = byId('conflict-rows', HTMLTableSectionElement);
  rows.replaceChildren();
  /**
   * @param {string} label
   * @param {string} theirs
   * @param {string} yours
   */
  const row = (label, theirs, yours) => {
    const tr = document.createElement('tr');
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = label;
    const a = document.createElement('td');
    a.textContent = theirs;
    const b = document.createElement('td');
    b.textContent = yours;
    tr.append(th, a, b);
    rows.append(tr);
  };
  if (current.name !== mine.name) row('name', current.name, mine.name);
  if ((current.notes ?? '') !== mine.notes) row('notes', current.notes ?? '', mine.notes);
  // Values as the page shows them (120ms, 2%), not as the JSON stores them.
  const text = (/** @type {Param} */ p, /** @type {unknown} */ v) => {
    const r = fromJSON(page.engine, p.name, v);
    return r.error ? (Array.isArray(v) ? v.join(',') : String(v)) : page.engine.format(p.name, r.value);
  };
  /** @type {Param[]} */
  const changed = [];
  for (const p of page.params) {
    const theirs = text(p, current.settings[p.name]);
    if (theirs !== text(p, mine.settings[p.name])) {
      changed.push(p);
      row(p.name, theirs, text(p, mine.settings[p.name]));
    }
  }
  const theirText = typeof current.settings.scenarioText === 'string' ? current.settings.scenarioText : '';
  const myText = typeof mine.settings.scenarioText === 'string' ? mine.settings.scenarioText : '';
  if (theirText !== myText) row('scenario text', theirText, myText);
  if (rows.childElementCount === 0) row('(nothing)', 'the same settings, name and notes', '');
  const keep = byId('conflict-mine', HTMLButtonElement);
  keep.textContent = `Keep mine (save over revision ${current.rev})`;
  keep.onclick = async () => {
    dialog.close();
    await save(mine, current.rev);
  };
  byId('conflict-theirs', HTMLButtonElement).onclick = () => {
    if (theirText !== myText && theirText !== '') page.applyScenario(theirText);
    for (const p of changed) page.set(p.name, fromJSON(page.engine, p.name, current.settings[p.name]).value);
    session.rev = current.rev;
    showSaved(current);
    dialog.close();
  };
  byId('conflict-cancel', HTMLButtonElement).onclick = () => dialog.close();
  dialog.showModal();
}

/**
 * showSaved shows a session's saved name and revision in the session bar.
 * @param {Revision} r
 */
function showSaved(r) {
  const el = byId('session', HTMLElement);
  el.dataset.rev = String(r.rev);
  el.dataset.name = r.name;
  byId('session-rev', HTMLElement).textContent = String(r.rev);
  const name = byId('session-name', HTMLElement);
  name.textContent = r.name;
  name.title = r.notes ?? '';
  document.title = r.name + ' · Interp Lab';
  byId('save-name', HTMLInputElement).value = r.name;
  if (r.notes !== undefined) byId('save-notes', HTMLTextAreaElement).value = r.notes;
  if (r.settings) savedHook?.saved(r.settings);
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let saveStatusTimer;

/**
 * showSaveStatus says in the session bar what the last save did, for a few
 * seconds: a save that changed nothing makes no revision, and says so.
 * @param {string} text
 */
function showSaveStatus(text) {
  const el = byId('save-status', HTMLElement);
  el.textContent = text;
  el.hidden = false;
  clearTimeout(saveStatusTimer);
  saveStatusTimer = setTimeout(() => { el.hidden = true; }, 6000);
}

/**
 * refresh reads the session again after another tab saved it.
 * @param {PageSession} session
 * @param {number} rev
 * @param {Compare} compare
 */
async function refresh(session, rev, compare) {
  session.rev = rev;
  byId('session-rev', HTMLElement).textContent = String(rev);
  try {
    const resp = await fetch('/api/sessions/' + session.id);
    if (!resp.ok) return;
    /** @type {SessionJSON} */
    const s = await resp.json();
    showSaved(s);
    compare.revisions(session.id, s.revisions);
  } catch {
    // The revision number is shown already; the name follows on the next save.
  }
}

/**
 * wireCompare keeps the Compare link on the current settings (as a q: ref)
 * and the variants checked in the picker.
 * @param {Page} page
 * @returns {Compare}
 */
function wireCompare(page) {
  const link = byId('compare-link', HTMLAnchorElement);
  const picker = byId('compare-picker', HTMLElement);
  /** @returns {HTMLInputElement[]} */
  const boxes = () => [...picker.querySelectorAll('input[name=compare]')].filter((b) => b instanceof HTMLInputElement);
  const update = () => {
    const checked = boxes().filter((b) => b.checked);
    for (const b of boxes()) b.disabled = !b.checked && checked.length >= MAX_COMPARED;
    const query = page.query();
    if (query === undefined) return; // a link with errors: the server's href has the state shown
    const refs = ['q:' + query, ...checked.map((b) => b.value)];
    link.href = '/compare?' + refs.map((r) => 'v=' + encodeURIComponent(r)).join('&');
  };
  picker.addEventListener('change', update);
  update();
  return {
    update,
    // revisions replaces the session's revisions in the picker (newest first).
    revisions(id, list) {
      const old = boxes().filter((b) => b.value.startsWith('session:'));
      const checked = new Set(old.filter((b) => b.checked).map((b) => b.value));
      old.forEach((b) => b.closest('label')?.remove());
      // Newest first, above the presets.
      const presets = boxes()[0]?.closest('label') ?? null;
      const box = picker.querySelector('.picker');
      if (!box) return;
      for (const r of [...list].reverse()) {
        const ref = `session:${id}@${r.rev}`;
        const input = Object.assign(document.createElement('input'), { type: 'checkbox', name: 'compare', value: ref, checked: checked.has(ref) });
        const label = document.createElement('label');
        label.append(input, ` rev ${r.rev} · ${r.name} · ${r.time.slice(0, 16).replace('T', ' ')} UTC`);
        box.insertBefore(label, presets);
      }
      update();
    },
  };
}

/**
 * @param {'connecting' | 'live' | 'offline' | 'gone'} state
 * @param {number} [retryMs]
 */
function showState(state, retryMs) {
  const el = maybeId('sync-state', HTMLElement);
  if (!el) return;
  el.dataset.state = state;
  el.textContent = {
    connecting: 'connecting…',
    live: 'live',
    offline: `offline · retrying in ${Math.round((retryMs ?? 0) / 1000)} s`,
    gone: 'session deleted',
  }[state];
}

/** @param {string} text */
function showSyncError(text) {
  const el = byId('sync-error', HTMLElement);
  el.textContent = text;
  el.hidden = text === '';
}
