  // ---- BOM ----------------------------------------------------------------------------------
  DataTable(document.getElementById('bom-table'), D.bom.columns, D.bom.rows.length, function (r, c) { return D.bom.rows[r][c]; }, { pageSize: 500 });

