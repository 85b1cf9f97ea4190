// railyard report: tables, diagram interaction and print sheets over the data embedded in the
// page. No network, no libraries: everything the page needs is in this file and the data block.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('report-data').textContent);
  var DEV = { name: 0, role: 1, rack: 2, model: 3, unit: 4, frame: 5, col: 6 };
  var CAB = { id: 0, label: 1, a: 2, ap: 3, b: 4, bp: 5, speed: 6, media: 7, len: 8, net: 9, tier: 10, plane: 11, rail: 12, bundle: 13, parts: 14 };
  var devices = D.devices, cables = D.cables;

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) { Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); }); }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function naturalCompare(a, b) {
    if (typeof a === 'number' && typeof b === 'number') { return a - b; }
    return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: 'base' });
  }
  function devName(i) { return devices[i][DEV.name]; }
  function devRack(i) { return devices[i][DEV.rack] || ''; }
  // How a cable is built (#26 item 4): the cable or fibre part, "2 × part" where a link takes two
  // fibres (800G over a twin-port module), and the module at one end (a is the cable's a end).
  function cablePart(x) { var p = x[CAB.parts]; return p[1] && p[2] > 1 ? p[2] + ' × ' + p[1] : p[1]; }
  function moduleAt(x, a) { return x[CAB.parts][a ? 0 : 4]; }

  // ---- a filterable, sortable, paged table ------------------------------------------------
  function DataTable(container, columns, count, cell, opts) {
    opts = opts || {};
    var pageSize = opts.pageSize || 100;
    var filters = columns.map(function () { return ''; });
    var sortCol = -1, sortDir = 1, page = 0, order = [];
    container.textContent = '';
    var pager = el('div', { 'class': 'pager' });
    var prev = el('button', { type: 'button' }, '◀');
    var next = el('button', { type: 'button' }, '▶');
    var info = el('span');
    pager.appendChild(prev); pager.appendChild(next); pager.appendChild(info);
    var scroll = el('div', { 'class': 'scroll' });
    var table = el('table');
    var thead = el('thead');
    var head = el('tr');
    var frow = el('tr', { 'class': 'filters' });
    var ths = [];
    columns.forEach(function (c, i) {
      var th = el('th', null, c);
      th.addEventListener('click', function () {
        if (sortCol === i) { sortDir = -sortDir; } else { sortCol = i; sortDir = 1; }
        ths.forEach(function (t) { t.classList.remove('sorted-asc', 'sorted-desc'); });
        th.classList.add(sortDir > 0 ? 'sorted-asc' : 'sorted-desc');
        compute();
      });
      ths.push(th);
      head.appendChild(th);
      var td = el('td');
      var input = el('input', { type: 'search', placeholder: 'filter', 'aria-label': 'filter ' + c });
      var timer = null;
      input.addEventListener('input', function () {
        clearTimeout(timer);
        timer = setTimeout(function () { filters[i] = input.value.trim().toLowerCase(); compute(); }, 150);
      });
      td.appendChild(input);
      frow.appendChild(td);
    });
    thead.appendChild(head); thead.appendChild(frow);
    var tbody = el('tbody');
    table.appendChild(thead); table.appendChild(tbody);
    scroll.appendChild(table);
    container.appendChild(pager);
    container.appendChild(scroll);
    prev.addEventListener('click', function () { if (page > 0) { page--; draw(); } });
    next.addEventListener('click', function () { if ((page + 1) * pageSize < order.length) { page++; draw(); } });

    function compute() {
      var active = [];
      filters.forEach(function (f, i) { if (f) { active.push(i); } });
      order = [];
      for (var r = 0; r < count; r++) {
        var keep = true;
        for (var k = 0; k < active.length; k++) {
          var v = cell(r, active[k]);
          if (String(v === null || v === undefined ? '' : v).toLowerCase().indexOf(filters[active[k]]) < 0) { keep = false; break; }
        }
        if (keep) { order.push(r); }
      }
      if (sortCol >= 0) {
        order.sort(function (x, y) { return sortDir * naturalCompare(cell(x, sortCol), cell(y, sortCol)) || x - y; });
      }
      page = 0;
      draw();
    }
    function draw() {
      tbody.textContent = '';
      var end = Math.min(order.length, (page + 1) * pageSize);
      var frag = document.createDocumentFragment();
      for (var k = page * pageSize; k < end; k++) {
        var r = order[k];
        var tr = el('tr');
        if (opts.rowClass) { var rc = opts.rowClass(r); if (rc) { tr.className = rc; } }
        for (var c = 0; c < columns.length; c++) {
          var td = el('td');
          if (opts.render) { opts.render(td, r, c); } else { td.textContent = cell(r, c); }
          tr.appendChild(td);
        }
        frag.appendChild(tr);
      }
      tbody.appendChild(frag);
      var first = order.length ? page * pageSize + 1 : 0;
      info.textContent = 'rows ' + first + '–' + end + ' of ' + order.length + (order.length !== count ? ' (filtered from ' + count + ')' : '');
    }
    compute();
    return { refresh: compute };
  }

