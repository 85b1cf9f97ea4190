// railyard report: tables, diagram interaction and print sheets over the data embedded in the
// page. No network, no libraries: everything the page needs is in this file and the data block.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('report-data').textContent);
  var DEV = { name: 0, role: 1, rack: 2, model: 3, unit: 4, frame: 5, col: 6 };
  var CAB = { id: 0, label: 1, a: 2, ap: 3, b: 4, bp: 5, speed: 6, media: 7, len: 8, net: 9, tier: 10, plane: 11, rail: 12, bundle: 13 };
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

  // ---- cabling ------------------------------------------------------------------------------
  var cablingCols = ['cable_id', 'label', 'a_device', 'a_port', 'b_device', 'b_port', 'speed', 'media', 'length_m', 'network', 'tier', 'plane', 'rail', 'a_rack', 'b_rack'];
  function cablingCell(r, c) {
    var x = cables[r];
    switch (c) {
      case 0: return x[CAB.id];
      case 1: return x[CAB.label];
      case 2: return devName(x[CAB.a]);
      case 3: return x[CAB.ap];
      case 4: return devName(x[CAB.b]);
      case 5: return x[CAB.bp];
      case 6: return x[CAB.speed];
      case 7: return x[CAB.media];
      case 8: return x[CAB.len];
      case 9: return x[CAB.net];
      case 10: return x[CAB.tier];
      case 11: return x[CAB.plane] === null ? '' : x[CAB.plane];
      case 12: return x[CAB.rail] === null ? '' : x[CAB.rail];
      case 13: return devRack(x[CAB.a]);
      default: return devRack(x[CAB.b]);
    }
  }
  DataTable(document.getElementById('cabling-table'), cablingCols, cables.length, cablingCell);

  // ---- port maps ----------------------------------------------------------------------------
  var byName = {};
  devices.forEach(function (d, i) { byName[d[DEV.name]] = i; });
  var switchList = document.getElementById('switch-names');
  D.switches.forEach(function (i) { switchList.appendChild(el('option', { value: devName(i) })); });
  var portInput = document.getElementById('portmap-switch');
  var portCols = ['port', 'cage', 'speed', 'peer_device', 'peer_port', 'cable_id', 'network', 'tier', 'media', 'length_m'];
  function showPortMap(name) {
    var i = byName[name];
    var rows = D.ports[String(i)];
    var target = document.getElementById('portmap-table');
    var summary = document.getElementById('portmap-summary');
    if (i === undefined || !rows) { target.textContent = ''; summary.textContent = name ? 'no switch named ' + name : ''; return; }
    var used = rows.filter(function (p) { return p[3] >= 0; }).length;
    var d = devices[i];
    summary.textContent = name + ' · ' + d[DEV.model] + ' · ' + d[DEV.role] + (d[DEV.rack] ? ' · rack ' + d[DEV.rack] : '') + ' · ' + used + ' of ' + rows.length + ' ports in use';
    function cell(r, c) {
      var p = rows[r];
      if (c < 3) { return p[c]; }
      if (p[3] < 0) { return c === 3 ? '— free' : ''; }
      var x = cables[p[3]];
      var here = x[CAB.a] === i ? 'a' : 'b';
      switch (c) {
        case 3: return devName(here === 'a' ? x[CAB.b] : x[CAB.a]);
        case 4: return here === 'a' ? x[CAB.bp] : x[CAB.ap];
        case 5: return x[CAB.id];
        case 6: return x[CAB.net];
        case 7: return x[CAB.tier];
        case 8: return x[CAB.media];
        default: return x[CAB.len];
      }
    }
    DataTable(target, portCols, rows.length, cell, { pageSize: 300, rowClass: function (r) { return rows[r][3] < 0 ? 'free' : ''; } });
  }
  portInput.addEventListener('change', function () { showPortMap(portInput.value.trim()); });
  portInput.addEventListener('input', function () { if (byName[portInput.value.trim()] !== undefined) { showPortMap(portInput.value.trim()); } });
  if (D.switches.length) { portInput.value = devName(D.switches[0]); showPortMap(portInput.value); }

  // ---- BOM ----------------------------------------------------------------------------------
  DataTable(document.getElementById('bom-table'), D.bom.columns, D.bom.rows.length, function (r, c) { return D.bom.rows[r][c]; }, { pageSize: 500 });

  // ---- diagram: pan, zoom, highlight, bundle detail ------------------------------------------
  var svg = document.getElementById('fabric');
  var view = document.getElementById('diagram-view');
  var full = svg.viewBox.baseVal;
  var box = { x: full.x, y: full.y, w: full.width, h: full.height };
  var home = { x: box.x, y: box.y, w: box.w, h: box.h };
  function apply() { svg.setAttribute('viewBox', box.x + ' ' + box.y + ' ' + box.w + ' ' + box.h); }
  // The view is as tall as the diagram at full width, within 40–80 % of the window.
  function sizeView() {
    var w = view.getBoundingClientRect().width || 1000;
    var h = Math.max(window.innerHeight * 0.4, Math.min(window.innerHeight * 0.8, w * home.h / home.w + 2));
    view.style.height = Math.round(h) + 'px';
  }
  sizeView();
  window.addEventListener('resize', sizeView);
  function zoom(f, cx, cy) {
    if (cx === undefined) { cx = box.x + box.w / 2; cy = box.y + box.h / 2; }
    var w = Math.min(home.w * 4, Math.max(80, box.w * f));
    var k = w / box.w;
    box = { x: cx - (cx - box.x) * k, y: cy - (cy - box.y) * k, w: w, h: box.h * k };
    apply();
  }
  function toSvg(evt) {
    var m = svg.getScreenCTM();
    if (!m) { return { x: box.x, y: box.y }; }
    var p = svg.createSVGPoint();
    p.x = evt.clientX; p.y = evt.clientY;
    return p.matrixTransform(m.inverse());
  }
  document.querySelectorAll('[data-zoom]').forEach(function (b) {
    b.addEventListener('click', function () {
      var z = b.getAttribute('data-zoom');
      if (z === 'fit') { box = { x: home.x, y: home.y, w: home.w, h: home.h }; apply(); }
      else if (z === 'in') { zoom(0.7); }
      else if (z === 'out') { zoom(1 / 0.7); }
      else {
        var r = view.getBoundingClientRect();
        var cx = box.x + box.w / 2, cy = box.y + box.h / 2;
        box = { x: cx - r.width / 2, y: cy - r.height / 2, w: r.width, h: r.height };
        apply();
      }
    });
  });
  view.addEventListener('wheel', function (evt) {
    evt.preventDefault();
    var p = toSvg(evt);
    zoom(evt.deltaY > 0 ? 1.15 : 1 / 1.15, p.x, p.y);
  }, { passive: false });
  var drag = null;
  view.addEventListener('mousedown', function (evt) {
    if (evt.button !== 0) { return; }
    drag = { x: evt.clientX, y: evt.clientY, box: { x: box.x, y: box.y, w: box.w, h: box.h }, moved: false };
    view.classList.add('dragging');
  });
  window.addEventListener('mousemove', function (evt) {
    if (!drag) { return; }
    var r = view.getBoundingClientRect();
    var s = Math.max(drag.box.w / r.width, drag.box.h / r.height);
    var dx = (evt.clientX - drag.x) * s, dy = (evt.clientY - drag.y) * s;
    if (Math.abs(dx) + Math.abs(dy) > 2) { drag.moved = true; }
    box = { x: drag.box.x - dx, y: drag.box.y - dy, w: drag.box.w, h: drag.box.h };
    apply();
  });
  window.addEventListener('mouseup', function () {
    if (drag) { view.classList.remove('dragging'); setTimeout(function () { drag = null; }, 0); }
  });

  var bundlesByAnchor = {};
  var bundleEls = svg.querySelectorAll('g.bundle');
  bundleEls.forEach(function (g) {
    ['data-from', 'data-to'].forEach(function (a) {
      var k = g.getAttribute(a);
      (bundlesByAnchor[k] = bundlesByAnchor[k] || []).push(g);
    });
  });
  var frameOfUnit = {};
  devices.forEach(function (d) { if (d[DEV.frame]) { frameOfUnit[d[DEV.unit]] = d[DEV.frame]; } });
  function highlight(key, on) {
    var list = (bundlesByAnchor[key] || []).concat(bundlesByAnchor[frameOfUnit[key]] || []);
    svg.classList.toggle('focus', on);
    list.forEach(function (g) { g.classList.toggle('hl', on); });
  }
  svg.querySelectorAll('g.node').forEach(function (g) {
    var key = g.getAttribute('data-unit');
    g.addEventListener('mouseenter', function () { g.classList.add('hl'); highlight(key, true); });
    g.addEventListener('mouseleave', function () { g.classList.remove('hl'); highlight(key, false); });
    var dev = g.getAttribute('data-device');
    if (dev) {
      g.addEventListener('click', function () {
        if (drag && drag.moved) { return; }
        portInput.value = dev;
        showPortMap(dev);
        document.getElementById('portmaps').scrollIntoView();
      });
    }
  });
  var detail = document.getElementById('bundle-detail');
  var selected = null;
  bundleEls.forEach(function (g) {
    g.addEventListener('click', function (evt) {
      evt.stopPropagation();
      if (drag && drag.moved) { return; }
      if (selected) { selected.classList.remove('sel'); }
      selected = g; g.classList.add('sel');
      var b = Number(g.getAttribute('data-bundle'));
      var rows = [];
      for (var i = 0; i < cables.length; i++) { if (cables[i][CAB.bundle] === b) { rows.push(i); } }
      detail.hidden = false;
      detail.textContent = '';
      var t = g.querySelector('title');
      detail.appendChild(el('h3', null, t ? t.textContent : 'bundle'));
      var pairs = {};
      rows.forEach(function (i) {
        var k = devName(cables[i][CAB.a]).replace(/\d+$/, '*') + ' → ' + devName(cables[i][CAB.b]);
        pairs[k] = (pairs[k] || 0) + 1;
      });
      var keys = Object.keys(pairs);
      if (keys.length > 1 && keys.length <= 64) {
        detail.appendChild(el('p', { 'class': 'note' }, keys.length + ' device pairs: ' + keys.slice(0, 24).map(function (k) { return k + ' ×' + pairs[k]; }).join(' · ') + (keys.length > 24 ? ' …' : '')));
      }
      var host = el('div', { 'class': 'datatable' });
      detail.appendChild(host);
      DataTable(host, cablingCols, rows.length, function (r, c) { return cablingCell(rows[r], c); }, { pageSize: 50 });
    });
  });

  // ---- print sheets -------------------------------------------------------------------------
  var pick = document.getElementById('sheet-pick');
  var pages = document.getElementById('sheet-pages');
  var status = document.getElementById('sheet-status');
  var perPage = D.rows_per_page;
  var totalRows = 0;
  D.sheets.forEach(function (s, k) {
    totalRows += s[1].length;
    pick.appendChild(el('option', { value: String(k) }, s[0] + ' (' + s[1].length + ')'));
  });
  function sheetRows(s) {
    var loc = s[0];
    return s[1].map(function (i) {
      var x = cables[i];
      var aHere = D.sheet_mode === 'rack' ? devRack(x[CAB.a]) === loc : devName(x[CAB.a]) === loc;
      var here = aHere ? [x[CAB.a], x[CAB.ap]] : [x[CAB.b], x[CAB.bp]];
      var far = aHere ? [x[CAB.b], x[CAB.bp]] : [x[CAB.a], x[CAB.ap]];
      return [x[CAB.id], devName(here[0]) + ':' + here[1], (devRack(far[0]) ? devRack(far[0]) + '.' : '') + devName(far[0]) + ':' + far[1], x[CAB.speed], x[CAB.media], x[CAB.len] + ' m', x[CAB.tier], x[CAB.label]];
    });
  }
  function buildSheets(list) {
    pages.textContent = '';
    var heads = ['', 'cable', 'this end', 'far end', 'speed', 'media', 'length', 'tier', 'label'];
    var count = 0;
    list.forEach(function (k) {
      var s = D.sheets[k];
      var rows = sheetRows(s);
      var tiers = {};
      rows.forEach(function (r) { tiers[r[6]] = (tiers[r[6]] || 0) + 1; });
      var totals = rows.length + ' cables: ' + Object.keys(tiers).sort().map(function (t) { return tiers[t] + ' ' + t; }).join(', ');
      var n = Math.max(1, Math.ceil(rows.length / perPage));
      for (var p = 0; p < n; p++) {
        var sheet = el('div', { 'class': 'sheet', 'data-location': s[0] });
        var header = el('header');
        header.appendChild(el('h3', null, (D.sheet_mode === 'rack' ? 'Rack ' : 'Switch ') + s[0]));
        var meta = el('div', { 'class': 'meta' });
        meta.appendChild(el('div', null, D.cluster + ' · ' + D.sheet_mode + ' sheet ' + (p + 1) + ' / ' + n));
        meta.appendChild(el('div', null, totals));
        header.appendChild(meta);
        sheet.appendChild(header);
        var table = el('table');
        var tr = el('tr');
        heads.forEach(function (h) { tr.appendChild(el('th', null, h)); });
        var thead = el('thead'); thead.appendChild(tr); table.appendChild(thead);
        var tbody = el('tbody');
        rows.slice(p * perPage, (p + 1) * perPage).forEach(function (r) {
          var row = el('tr');
          row.appendChild(el('td', { 'class': 'tick' }, '☐'));
          r.forEach(function (v, c) { if (c === 7) { row.appendChild(el('td', { 'class': 'lbl' }, v)); } else { row.appendChild(el('td', null, v)); } });
          tbody.appendChild(row);
        });
        table.appendChild(tbody);
        sheet.appendChild(table);
        sheet.appendChild(el('div', { 'class': 'totals' }, 'installed by ____________  date ________  checked ____________'));
        pages.appendChild(sheet);
        count++;
      }
    });
    status.textContent = count + ' page(s) ready to print';
  }
  function selectedSheets() {
    var v = [];
    Array.prototype.forEach.call(pick.selectedOptions, function (o) { v.push(Number(o.value)); });
    return v;
  }
  document.getElementById('sheet-build').addEventListener('click', function () { buildSheets(selectedSheets()); });
  document.getElementById('sheet-all').addEventListener('click', function () { buildSheets(D.sheets.map(function (s, k) { return k; })); });
  document.getElementById('sheet-print').addEventListener('click', function () { window.print(); });
  if (totalRows <= D.auto_sheet_rows) {
    buildSheets(D.sheets.map(function (s, k) { return k; }));
  } else {
    status.textContent = totalRows + ' rows in ' + D.sheets.length + ' sheets: pick the ' + D.sheet_mode + 's to print';
  }
  window.railyardReport = { ready: true, cables: cables.length, devices: devices.length };
})();
