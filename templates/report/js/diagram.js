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

