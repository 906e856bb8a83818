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
// The treemap's colour: by tier or by content type (the build chose the first).
const treemap = document.getElementById("treemap");
for (const input of document.querySelectorAll("input[name=colour]")) {
  input.addEventListener("change", () => {
    if (treemap !== null && input.checked) treemap.setAttribute("class", `by-${input.value}`);
  });
}
