  // ---- cabling ------------------------------------------------------------------------------
  var cablingCols = ['cable_id', 'label', 'a_device', 'a_port', 'b_device', 'b_port', 'speed', 'media', 'length_m', 'network', 'tier', 'plane', 'rail', 'a_rack', 'b_rack', 'a_module', 'cable_part', 'leg', 'b_module'];
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
      case 14: return devRack(x[CAB.b]);
      case 15: return x[CAB.parts][0];
      case 16: return cablePart(x);
      case 17: return x[CAB.parts][3];
      default: return x[CAB.parts][4];
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

