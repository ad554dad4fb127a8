"""``bgengine web``: the engine over HTTP, and a board to play it on in a browser.

* :mod:`bgengine.protocols.web.steps`: a roll played one checker step at a time (what the page's
  clicks may do), judged by the compiled move generator;
* :mod:`bgengine.protocols.web.session`: one browser's match against the engine, action by action;
* :mod:`bgengine.protocols.web.store`: the browser sessions, a bounded number of them;
* :mod:`bgengine.protocols.web.api`: the HTTP layer (FastAPI; ``pip install 'bgengine[web]'``),
  thin: the JSON API on game states and the board's actions;
* ``static/``: the page (HTML, SVG drawn by plain JavaScript, CSS), no other files.
"""
