// The Interview page: send a turn and show the interviewer's reply as it streams.
// The page works without this file (the form posts, the server answers with the
// whole page again); this sends the same form to the form's data-stream address
// and reads its server-sent events: "reply" pieces of text, a "notice" when the
// model endpoint failed, "done" when the turn is saved, "error" when refused.
(function () {
  "use strict";
  var form = document.getElementById("turn-form");
  var transcript = document.getElementById("transcript");
  if (!form || !transcript || !window.fetch || !window.TextDecoder) {
    return;
  }
  var status = document.getElementById("turn-status");
  var busy = false;

  function turn(role, label, text) {
    var item = document.createElement("li");
    item.className = "turn " + role;
    var who = document.createElement("p");
    who.className = "muted";
    who.textContent = label;
    var body = document.createElement("div");
    body.className = "turn-text";
    body.style.whiteSpace = "pre-wrap";
    body.textContent = text;
    item.appendChild(who);
    item.appendChild(body);
    transcript.appendChild(item);
    return body;
  }

  function parse(block) {
    var name = "message";
    var data = "";
    block.split("\n").forEach(function (line) {
      if (line.indexOf("event:") === 0) {
        name = line.slice(6).trim();
      } else if (line.indexOf("data:") === 0) {
        data += line.slice(5).trim();
      }
    });
    return { name: name, data: data ? JSON.parse(data) : {} };
  }

  form.addEventListener("submit", function (event) {
    if (busy) {
      event.preventDefault();
      return;
    }
    var button = event.submitter;
    var move = button && button.name === "move" ? button.value : "answer";
    var params = new URLSearchParams(new FormData(form));
    params.set("move", move);
    event.preventDefault();
    busy = true;
    status.textContent = "The interviewer is thinking...";
    var said = form.elements.text.value;
    if (said.trim()) {
      turn("learner", "You", said);
    }
    var reply = turn("interviewer", "Interviewer", "");
    fetch(form.getAttribute("data-stream"), {
      method: "POST",
      body: params,
      credentials: "same-origin",
      headers: { Accept: "text/event-stream" },
    })
      .then(function (response) {
        if (!response.ok || !response.body) {
          return response.json().then(function (shape) {
            throw new Error(shape.error ? shape.error.message : "The turn was refused.");
          });
        }
        var reader = response.body.getReader();
        var decoder = new TextDecoder();
        var pending = "";
        function pump() {
          return reader.read().then(function (chunk) {
            if (chunk.done) {
              return;
            }
            pending += decoder.decode(chunk.value, { stream: true });
            var cut;
            while ((cut = pending.indexOf("\n\n")) >= 0) {
              var found = parse(pending.slice(0, cut));
              pending = pending.slice(cut + 2);
              if (found.name === "reply") {
                reply.textContent += found.data.text;
              } else if (found.name === "notice") {
                status.textContent = found.data.message;
              } else if (found.name === "error") {
                throw new Error(found.data.message);
              } else if (found.name === "done") {
                // The saved page shows the reply with its verdicts and key points.
                window.location.replace(window.location.pathname + "#latest");
                window.location.reload();
                return;
              }
            }
            return pump();
          });
        }
        return pump();
      })
      .catch(function (error) {
        busy = false;
        status.textContent = error.message;
        reply.parentNode.remove();
      });
  });
})();
