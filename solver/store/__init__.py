"""Table files, game-blind: metadata, digests and checksums (``tables``), writing
sets atomically (``sets``), builds from given builders (``build``), rule-file tables
(``custom``) and ``bull check-tables`` (``integrity``)."""
