"""The game-blind parts of the engines: verify (``read``, ``parse``, ``check``,
``findings``), diagnosis, vectors, exact odds (``exact``), simulation, report pages
(``markdown``) and the registry entry base (``entry``)."""
