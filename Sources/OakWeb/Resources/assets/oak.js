// Search as you type: the search form works without this script (a GET to /search); with it, the first results of
// /api/v1/search appear under the box while typing. Every name is written as text (textContent), never as markup.
(function () {
  "use strict";
  var box = document.getElementById("q");
  var form = box && box.form;
  if (!form || !window.fetch) return;
  var list = document.createElement("ul");
  list.id = "suggestions";
  list.className = "suggestions";
  list.setAttribute("aria-label", "Suggestions");
  var status = document.createElement("p");
  status.className = "visually-hidden";
  status.setAttribute("aria-live", "polite");
  form.appendChild(list);
  form.appendChild(status);
  var timer = null;
  var latest = 0;

  function segment(text) { return encodeURIComponent(text); }

  function item(text, href, kind) {
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    li.appendChild(a);
    if (kind) {
      var span = document.createElement("span");
      span.className = "level";
      span.textContent = " " + kind;
      li.appendChild(span);
    }
    return li;
  }

  function show(result, asked) {
    if (asked !== latest) return;
    list.textContent = "";
    (result.species || []).forEach(function (s) {
      list.appendChild(item("Quercus " + s.scientific_name, "/species/" + segment(s.scientific_name), ""));
    });
    (result.taxa || []).forEach(function (t) {
      list.appendChild(item(t.name, "/taxa/" + segment(t.level) + "/" + segment(t.name), t.level));
    });
    (result.sources || []).forEach(function (s) {
      list.appendChild(item(s.name, "/sources/" + segment(String(s.id)), "source"));
    });
    status.textContent = list.children.length ? list.children.length + " suggestions" : "No suggestions";
  }

  box.addEventListener("input", function () {
    clearTimeout(timer);
    var query = box.value.trim();
    if (!query) { list.textContent = ""; status.textContent = ""; return; }
    timer = setTimeout(function () {
      var asked = ++latest;
      fetch("/api/v1/search?limit=5&q=" + encodeURIComponent(query), { headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : {}; })
        .then(function (result) { show(result, asked); })
        .catch(function () {});
    }, 150);
  });
  box.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { list.textContent = ""; status.textContent = ""; }
  });
})();

// Live updates of a species page: when the server says a change altered it (server-sent events), the page is fetched
// again and its article put in place, so an open page shows a new note or description within a second. The new
// article is parsed as an inert document (no script of it runs) and holds only what the server escaped. Without
// EventSource the page stays as loaded. A hidden tab lets its stream go (browsers allow few connections per
// server) and, shown again, resumes from the last change it saw.
(function () {
  "use strict";
  var article = document.querySelector("[data-live]");
  if (!article || !window.EventSource || !window.fetch || !window.DOMParser) return;
  var href = article.getAttribute("data-live");
  var stream = null;
  var status = document.createElement("p");
  status.className = "visually-hidden";
  status.setAttribute("aria-live", "polite");
  document.body.appendChild(status);

  function refresh() {
    fetch(location.pathname + location.search, { headers: { Accept: "text/html" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (!html) return;
        var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("[data-live]");
        var current = document.querySelector("[data-live]");
        if (!fresh || !current) return;
        href = fresh.getAttribute("data-live");
        current.replaceWith(document.adoptNode(fresh));
        status.textContent = "This page was updated.";
      })
      .catch(function () {});
  }

  function open() {
    if (stream) return;
    stream = new EventSource(href);
    stream.addEventListener("changed", function (event) {
      href = href.replace(/since=\d+/, "since=" + event.lastEventId);
      refresh();
    });
  }

  function close() {
    if (stream) { stream.close(); stream = null; }
  }

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) { close(); } else { open(); }
  });
  if (!document.hidden) open();
})();
