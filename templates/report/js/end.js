  window.railyardReport = { ready: true, cables: cables.length, devices: devices.length };
})();
