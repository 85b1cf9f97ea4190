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
      return [x[CAB.id], devName(here[0]) + ':' + here[1], (devRack(far[0]) ? devRack(far[0]) + '.' : '') + devName(far[0]) + ':' + far[1], x[CAB.speed], x[CAB.media], x[CAB.len] + ' m', x[CAB.tier], x[CAB.label], moduleAt(x, aHere), cablePart(x) + (x[CAB.parts][3] ? ' leg ' + x[CAB.parts][3] : ''), moduleAt(x, !aHere)];
    });
  }
  function buildSheets(list) {
    pages.textContent = '';
    var heads = ['', 'cable', 'this end', 'far end', 'speed', 'media', 'length', 'tier', 'label', 'module here', 'cable part', 'module far'];
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
