// The explorer diagram viewer. Reads the node details embedded in the page (#explorer-data),
// adds pan and zoom to the inline SVG graphviz drew, a search box that highlights matching
// nodes, and a side panel for the clicked node. No network, no libraries.
(function () {
  "use strict";
  const details = JSON.parse(document.getElementById("explorer-data").textContent);
  const canvas = document.getElementById("canvas");
  const svg = canvas.querySelector("svg");
  const panel = document.getElementById("panel");
  const search = document.getElementById("search");
  const matchCount = document.getElementById("matches");

  // -- pan and zoom, by moving the SVG's viewBox -------------------------------------------
  const READABLE_WIDTH = 1400;  // points of drawing across the window when a match is shown
  const initial = svg.viewBox.baseVal;
  const whole = { x: initial.x, y: initial.y, width: initial.width, height: initial.height };
  let view = Object.assign({}, whole);
  svg.removeAttribute("width");
  svg.removeAttribute("height");

  function show(box) {
    view = box;
    svg.setAttribute("viewBox", [box.x, box.y, box.width, box.height].join(" "));
  }

  function fit() {
    show(Object.assign({}, whole));
  }

  function svgPoint(clientX, clientY) {
    const rect = svg.getBoundingClientRect();
    // preserveAspectRatio is xMidYMid meet: one scale, the drawing centred in the box
    const scale = Math.max(view.width / rect.width, view.height / rect.height);
    return {
      x: view.x + view.width / 2 + (clientX - rect.left - rect.width / 2) * scale,
      y: view.y + view.height / 2 + (clientY - rect.top - rect.height / 2) * scale,
      scale: scale,
    };
  }

  function zoom(factor, clientX, clientY) {
    const rect = svg.getBoundingClientRect();
    const at = svgPoint(clientX === undefined ? rect.left + rect.width / 2 : clientX,
                        clientY === undefined ? rect.top + rect.height / 2 : clientY);
    show({
      x: at.x - (at.x - view.x) * factor,
      y: at.y - (at.y - view.y) * factor,
      width: view.width * factor,
      height: view.height * factor,
    });
  }

  function centreOn(element) {
    // Client coordinates, since graphviz nests the drawing in a translated group.
    const rect = element.getBoundingClientRect();
    const centre = svgPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
    const width = Math.min(view.width, READABLE_WIDTH), height = view.height * width / view.width;
    show({ x: centre.x - width / 2, y: centre.y - height / 2, width: width, height: height });
  }

  canvas.addEventListener("wheel", function (event) {
    event.preventDefault();
    zoom(event.deltaY < 0 ? 0.85 : 1 / 0.85, event.clientX, event.clientY);
  }, { passive: false });

  let drag = null;  // where a press started, to tell a pan from a click
  canvas.addEventListener("mousedown", function (event) {
    drag = { x: event.clientX, y: event.clientY, view: Object.assign({}, view), moved: false };
  });
  window.addEventListener("mousemove", function (event) {
    if (!drag) return;
    const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) {
      drag.moved = true;
      canvas.classList.add("panning");
    }
    if (drag.moved) {
      const scale = svgPoint(0, 0).scale;
      show({ x: drag.view.x - dx * scale, y: drag.view.y - dy * scale, width: view.width, height: view.height });
    }
  });
  window.addEventListener("mouseup", function () {
    canvas.classList.remove("panning");
    setTimeout(function () { drag = null; }, 0);  // the click that follows still sees it
  });
  document.getElementById("zoom-in").addEventListener("click", function () { zoom(0.8); });
  document.getElementById("zoom-out").addEventListener("click", function () { zoom(1.25); });
  document.getElementById("zoom-fit").addEventListener("click", fit);

  // -- opening on the first path ---------------------------------------------------------------
  // A trace with --to opens on its first path (the straight line the diagram draws it as):
  // across the window, from its start down; a path shorter than the window is shown whole.
  function fitFirstPath() {
    const ids = Object.keys(details).filter(function (id) { return details[id].spine; });
    if (!ids.length) return;
    let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
    ids.forEach(function (id) {
      const rect = document.getElementById(id).getBoundingClientRect();
      left = Math.min(left, rect.left); top = Math.min(top, rect.top);
      right = Math.max(right, rect.right); bottom = Math.max(bottom, rect.bottom);
    });
    const from = svgPoint(left, top), to = svgPoint(right, bottom);
    const margin = 24;
    const box = { x: from.x - margin, y: from.y - margin, width: to.x - from.x + 2 * margin, height: to.y - from.y + 2 * margin };
    const screen = svg.getBoundingClientRect();
    const aspect = screen.height / screen.width;
    if (box.height > box.width * aspect) {  // taller than the window: its width across, its top first
      show({ x: box.x, y: box.y, width: box.width, height: box.width * aspect });
    } else {  // all of it, centred across
      const width = box.height / aspect;
      show({ x: box.x + box.width / 2 - width / 2, y: box.y, width: width, height: box.height });
    }
  }
  fitFirstPath();

  // -- the side panel ------------------------------------------------------------------------
  function element(tag, className, text) {
    const made = document.createElement(tag);
    if (className) made.className = className;
    if (text !== undefined && text !== null) made.textContent = text;
    return made;
  }

  function select(id) {
    const node = details[id];
    if (!node) return;
    svg.querySelectorAll("g.node.selected").forEach(function (g) { g.classList.remove("selected"); });
    document.getElementById(id).classList.add("selected");
    panel.replaceChildren();
    panel.appendChild(element("h2", "name", node.name));
    panel.appendChild(element("div", "qname", node.qname));
    panel.appendChild(element("div", "meta kind", node.kind + " · " + node.layer));
    const where = element("div", "meta location");
    if (node.url) {
      const link = element("a", null, node.location);
      link.href = node.url;
      where.appendChild(link);
    } else {
      where.textContent = node.location;
    }
    panel.appendChild(where);
    if (node.note) panel.appendChild(element("div", "meta note", node.note));
    if (node.members.length) {
      const list = element("ul", "members");
      node.members.forEach(function (member) { list.appendChild(element("li", null, member)); });
      panel.appendChild(list);
    }
    if (node.snippet.length) {
      const code = element("pre", "snippet");
      node.snippet.forEach(function (text, offset) {
        const number = element("span", "number", String(node.first_line + offset));
        code.appendChild(number);
        code.appendChild(document.createTextNode(text + "\n"));
      });
      if (node.more_lines) code.appendChild(document.createTextNode("... (" + node.more_lines + " more lines)"));
      panel.appendChild(code);
    }
  }

  svg.querySelectorAll("g.node").forEach(function (g) {
    if (!details[g.id]) return;  // the legend
    g.addEventListener("click", function (event) {
      event.preventDefault();  // a node's link opens from the panel, not on every click
      if (drag && drag.moved) return;
      select(g.id);
    });
  });

  // -- search ----------------------------------------------------------------------------------
  let matches = [];
  let current = -1;
  search.addEventListener("input", function () {
    const query = search.value.trim().toLowerCase();
    matches = [];
    current = -1;
    svg.querySelectorAll("g.node").forEach(function (g) {
      const node = details[g.id];
      const hit = Boolean(query && node && (node.qname.toLowerCase().includes(query) ||
                                            node.name.toLowerCase().includes(query) ||
                                            node.location.toLowerCase().includes(query)));
      g.classList.toggle("match", hit);
      if (hit) matches.push(g);
    });
    svg.classList.toggle("searching", query.length > 0);
    matchCount.textContent = query ? matches.length + " match" + (matches.length === 1 ? "" : "es") : "";
  });
  search.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !matches.length) return;
    current = (current + 1) % matches.length;
    centreOn(matches[current]);
    select(matches[current].id);
  });
})();
