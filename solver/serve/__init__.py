"""``bull serve``: the reference over HTTP (FastAPI on uvicorn, the optional extra
``serve``) and the web trainer and lookup.

The rooms: :mod:`~solver.serve.bodies` (the request models, the OpenAPI schemas),
:mod:`~solver.serve.calls` (what each endpoint computes: the CLI's record functions),
:mod:`~solver.serve.limits` (body size and slow-client limits), :mod:`~solver.serve.app`
(the routes and error answers), :mod:`~solver.serve.protocol` (the request-head
deadline), :mod:`~solver.serve.command` (``bull serve``). The pages
are static files in ``static/``: no build step, no internet.
"""

__all__: list[str] = []
