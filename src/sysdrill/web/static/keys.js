// Keyboard shortcuts shared by every page. Pages work without this file;
// it only adds keys. An element with data-key="x" is clicked (or focused, for
// form fields) when x is pressed outside a text field.
(function () {
  "use strict";
  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) {
      return;
    }
    if (event.key === "/") {
      var search = document.querySelector("[data-key='/']");
      if (search) {
        event.preventDefault();
        search.focus();
      }
      return;
    }
    var target = document.querySelector("[data-key='" + CSS.escape(event.key) + "']");
    if (!target) {
      return;
    }
    event.preventDefault();
    if (typing(target)) {
      target.focus();
    } else {
      target.click();
    }
  });
})();
