for (const table of document.querySelectorAll("table.sortable")) {
  table.querySelectorAll("th").forEach((th, column) => th.addEventListener("click", () => {
    const body = table.tBodies[0];
    const key = (row) => {
      const cell = row.cells[column];
      return cell.dataset.n !== undefined ? Number(cell.dataset.n) : cell.textContent;
    };
    const down = th.dataset.order !== "down";
    th.dataset.order = down ? "down" : "up";
    const rows = [...body.rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    if (down) rows.reverse();
    rows.forEach((row) => body.appendChild(row));
  }));
}
// The treemap's colour: by tier or by content type (the build chose the first; a browser that
// restores a radio's state on reload is followed).
const treemap = document.getElementById("treemap");
const colourBy = (input) => {
  if (treemap !== null && input.checked) treemap.setAttribute("class", `by-${input.value}`);
};
for (const input of document.querySelectorAll("input[name=colour]")) {
  colourBy(input);
  input.addEventListener("change", () => colourBy(input));
}
