/* Sorting, filtering, paging and expanding for the report's tables. No libraries, no network.
   A table with class "data" gets controls; in "items" tables each <tbody> is one item (a head row
   plus a hidden detail row), elsewhere each row is one. Cells sort by data-sort when present. */
(function () {
  "use strict";
  var tables = [];

  function items(table) {
    return table.classList.contains("items")
      ? Array.prototype.slice.call(table.tBodies)
      : (table.tBodies[0] ? Array.prototype.slice.call(table.tBodies[0].rows) : []);
  }
  function firstRow(item) { return item.tagName === "TBODY" ? item.rows[0] : item; }
  function cellValue(item, index, numeric) {
    var cell = firstRow(item).cells[index];
    if (!cell) { return numeric ? -Infinity : ""; }
    var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    if (numeric) { var n = parseFloat(raw.replace(/,/g, "")); return isNaN(n) ? -Infinity : n; }
    return raw.toLowerCase();
  }

  function Table(table) {
    this.table = table;
    this.all = items(table);
    this.shown = this.all;
    this.page = 0;
    this.size = parseInt(table.getAttribute("data-page-size"), 10) || 25;
    if (this.all.length > 8) { this.addControls(); }
    this.addSorting();
    this.render();
  }
  Table.prototype.addControls = function () {
    var self = this, box = document.createElement("div");
    box.className = "controls";
    var input = document.createElement("input");
    input.type = "search"; input.placeholder = "Filter these " + this.all.length + " rows";
    input.setAttribute("aria-label", "Filter table");
    var timer = null;
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { self.filter(input.value); }, 150);
    });
    this.prev = document.createElement("button"); this.prev.type = "button"; this.prev.textContent = "‹ Previous";
    this.next = document.createElement("button"); this.next.type = "button"; this.next.textContent = "Next ›";
    this.allButton = document.createElement("button"); this.allButton.type = "button"; this.allButton.textContent = "Show all";
    this.count = document.createElement("span"); this.count.className = "count";
    this.prev.addEventListener("click", function () { self.page -= 1; self.render(); });
    this.next.addEventListener("click", function () { self.page += 1; self.render(); });
    this.allButton.addEventListener("click", function () { self.size = Infinity; self.page = 0; self.render(); });
    box.appendChild(input); box.appendChild(this.prev); box.appendChild(this.next);
    box.appendChild(this.allButton); box.appendChild(this.count);
    this.table.parentNode.insertBefore(box, this.table);
  };
  Table.prototype.filter = function (text) {
    var words = text.toLowerCase().split(/\s+/).filter(Boolean);
    this.shown = words.length ? this.all.filter(function (item) {
      var hay = item.textContent.toLowerCase();
      return words.every(function (w) { return hay.indexOf(w) >= 0; });
    }) : this.all;
    this.page = 0;
    this.render();
  };
  Table.prototype.addSorting = function () {
    var self = this, head = this.table.tHead && this.table.tHead.rows[0];
    if (!head || this.all.length < 2) { return; }
    Array.prototype.forEach.call(head.cells, function (th, index) {
      th.classList.add("sortable");
      th.setAttribute("tabindex", "0");
      var sort = function () { self.sortBy(th, index); };
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  };
  Table.prototype.sortBy = function (th, index) {
    var numeric = th.classList.contains("num");
    var descending = th.getAttribute("aria-sort") !== "descending" && (numeric || th.getAttribute("aria-sort") === "ascending");
    Array.prototype.forEach.call(th.parentNode.cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    var keyed = this.all.map(function (item, i) { return [cellValue(item, index, numeric), i, item]; });
    keyed.sort(function (a, b) {
      var d = a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
      return (descending ? -d : d) || a[1] - b[1];
    });
    this.all = keyed.map(function (k) { return k[2]; });
    var parent = this.table.classList.contains("items") ? this.table : this.table.tBodies[0];
    var frag = document.createDocumentFragment();
    this.all.forEach(function (item) { frag.appendChild(item); });
    parent.appendChild(frag);
    var shownSet = new Set(this.shown);
    this.shown = this.all.filter(function (item) { return shownSet.has(item); });
    this.render();
  };
  Table.prototype.pages = function () { return Math.max(1, Math.ceil(this.shown.length / this.size)); };
  Table.prototype.render = function () {
    this.page = Math.min(Math.max(this.page, 0), this.pages() - 1);
    var start = this.page * this.size, end = start + this.size, visible = new Set(this.shown.slice(start, end));
    this.all.forEach(function (item) { item.hidden = !visible.has(item); });
    if (this.count) {
      this.count.textContent = this.shown.length === this.all.length
        ? "page " + (this.page + 1) + " of " + this.pages() + " · " + this.all.length + " rows"
        : "page " + (this.page + 1) + " of " + this.pages() + " · " + this.shown.length + " of " + this.all.length + " rows match";
      this.prev.disabled = this.page === 0;
      this.next.disabled = this.page >= this.pages() - 1;
      this.allButton.disabled = this.size === Infinity || this.shown.length <= this.size;
    }
  };
  Table.prototype.reveal = function (item) {
    var at = this.shown.indexOf(item);
    if (at < 0) { this.shown = this.all; at = this.all.indexOf(item); }
    if (at < 0) { return; }
    this.page = Math.floor(at / this.size);
    this.render();
  };

  function toggle(button) {
    var item = button.closest("tbody"), detail = item && item.querySelector("tr.detail");
    if (!detail) { return; }
    detail.hidden = !detail.hidden;
    button.setAttribute("aria-expanded", detail.hidden ? "false" : "true");
  }

  function revealHash() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) { return; }
    tables.forEach(function (t) {
      var item = t.all.indexOf(target) >= 0 ? target : null;
      if (item) {
        t.reveal(item);
        var button = item.querySelector("button.toggle");
        if (button && button.getAttribute("aria-expanded") === "false") { toggle(button); }
      }
    });
    var details = target.closest("details");
    if (details) { details.open = true; }
    target.scrollIntoView();
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.data"), function (table) {
    tables.push(new Table(table));
  });
  document.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest("button.toggle");
    if (button) { toggle(button); }
  });
  window.addEventListener("hashchange", revealHash);
  // Printing shows everything (the stylesheet unhides paged and detail rows); closed <details> open for
  // the print and close again after, so the screen is left as the reader had it.
  var openedForPrint = [];
  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("details:not([open])"), function (d) {
      d.open = true;
      openedForPrint.push(d);
    });
  });
  window.addEventListener("afterprint", function () {
    openedForPrint.forEach(function (d) { d.open = false; });
    openedForPrint = [];
  });
  if (location.hash) { revealHash(); }
  document.documentElement.setAttribute("data-report-ready", "1");
})();
