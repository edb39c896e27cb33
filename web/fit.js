// @ts-check
// fit.js saves a trace's fitted link as a custom preset from its fit page
// (/traces/{name}/fit) with POST /api/presets, and says what happened. A
// page whose trace could not be fitted has no button.

const save = document.getElementById('fit-save');
const said = document.getElementById('fit-saved');

if (save instanceof HTMLButtonElement && said) {
  save.addEventListener('click', async () => {
    save.disabled = true;
    const res = await fetch('/api/presets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: save.dataset.body ?? '',
    });
    if (res.ok) {
      said.textContent = `Saved as preset ${save.dataset.name}.`;
    } else {
      /** @type {import('./types/interplab').ApiError} */
      const body = await res.json().catch(() => ({ error: res.statusText }));
      said.textContent = body.error;
      save.disabled = false;
    }
    said.hidden = false;
  });
}
