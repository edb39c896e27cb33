// @ts-check
// compare.js ties each row of the compare form's chooser to its text box:
// picking a variant from the list (presets, saved sessions and revisions,
// traces) writes its ref into the box, and typing a ref that the list has
// selects it there. The form submits the boxes; without this script they
// still take typed refs.

for (const pick of document.querySelectorAll('select.ref-pick')) {
  if (!(pick instanceof HTMLSelectElement)) continue;
  const box = document.getElementById(pick.dataset.for ?? '');
  if (!(box instanceof HTMLInputElement)) continue;
  pick.addEventListener('change', () => {
    if (pick.value !== '') box.value = pick.value;
  });
  box.addEventListener('input', () => {
    const v = box.value.trim();
    pick.value = Array.from(pick.options).some((o) => o.value === v && v !== '') ? v : '';
  });
}
