// Study pages: the gauntlet's live countdown. The page works without this
// file (the server checks the countdown on every request and shows the time
// left); this only ticks it down each second and reloads when time is up, so
// the server ends the gauntlet. Rating keys are data-key buttons (keys.js).
(function () {
  "use strict";
  var clock = document.getElementById("countdown");
  if (!clock) {
    return;
  }
  var remaining = parseInt(clock.getAttribute("data-remaining"), 10);
  var started = Date.now();
  function show() {
    var left = Math.max(0, remaining - Math.floor((Date.now() - started) / 1000));
    var seconds = left % 60;
    clock.textContent = Math.floor(left / 60) + ":" + (seconds < 10 ? "0" : "") + seconds;
    if (left <= 0) {
      window.location.reload();
      return;
    }
    window.setTimeout(show, 1000);
  }
  show();
})();
